// Package coordnet is what the coordinator adapters (workerid/etcd,
// workerid/redis, workerid/kube) share about reaching their server: a
// probe of one address that names why a connection fails (refused, a TLS
// handshake, a silent server, another protocol), the TLS configuration
// read from PEM files, and requests made in bounded attempts. Each adapter exports these in its own terms; floed and
// applications use the adapters.
package coordnet
