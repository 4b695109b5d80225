// Package floev1 is the Go code protoc generates from
// proto/floe/v1/floe.proto: the messages, the client and the server
// interface of floed's gRPC API (service floe.v1.IDs). Only doc.go is
// written by hand; a test checks that the rest matches the generators'
// output.
package floev1

//go:generate ../../scripts/protogen
