//go:build unix

package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/internal/tcptest"
	"github.com/floeid/floe/workerid/etcd"
)

// Dial fails at once, naming the endpoint and the cause, where the etcd
// client would retry until the context's deadline and report only that.
func ExampleDial() {
	addr, err := tcptest.Refused() // an etcd that is down: nothing listens there
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := etcd.Dial(ctx, clientv3.Config{Endpoints: []string{addr}})
	if err != nil {
		fmt.Println(strings.ReplaceAll(err.Error(), addr, "etcd-0:2379"))
		fmt.Println(errors.Is(err, etcd.ErrUnreachable))
		return
	}
	defer cli.Close()
	// Output:
	// etcd etcd-0:2379: cannot connect: connection refused
	// true
}

// ProbeAll checks every endpoint at once; an *EndpointError says which
// failed and why.
func ExampleProbeAll() {
	addr, err := tcptest.Refused() // an etcd that is down: nothing listens there
	if err != nil {
		panic(err)
	}
	for _, err := range etcd.ProbeAll(context.Background(), []string{addr, "unix:///run/etcd.sock"}, nil) {
		var ee *etcd.EndpointError
		switch {
		case errors.As(err, &ee):
			fmt.Println(ee.Endpoint == addr, errors.Is(err, etcd.ErrUnreachable), ee.Err)
		case err == nil:
			fmt.Println("not probed, or answered")
		}
	}
	// Output:
	// true true cannot connect: connection refused
	// not probed, or answered
}

// TLSConfig reads the PEM files of a TLS client; a file it cannot use is a
// *TLSFileError naming its field.
func ExampleTLSConfig() {
	_, err := etcd.TLSConfig(etcd.TLSFiles{CA: "no-such-ca.pem"})
	fmt.Println(err)
	var fe *etcd.TLSFileError
	fmt.Println(errors.As(err, &fe), fe.Field)
	// Output:
	// floe: etcd TLSFiles.CA: open no-such-ca.pem: no such file or directory
	// true CA
}
