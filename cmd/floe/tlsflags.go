package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"net"

	"github.com/floeid/floe/tlsfile"
)

// tlsFlags are the TLS flags of the commands that connect to floed: the
// same for the binary protocol (get, bench), HTTP (bench -http, seq, node)
// and every other.
type tlsFlags struct {
	on                        bool
	ca, cert, key, serverName string
}

// register adds -tls, -tls-ca, -tls-cert, -tls-key and -tls-server-name
// to fs.
func (f *tlsFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.on, "tls", false, "connect over TLS, trusting the system's CAs unless -tls-ca (each -tls-* flag implies it)")
	fs.StringVar(&f.ca, "tls-ca", "", "connect over TLS, trusting the CA certificates in this PEM `file`")
	fs.StringVar(&f.cert, "tls-cert", "", "connect over TLS with this client certificate, a PEM `file` (with -tls-key), for floed --tls-client-ca")
	fs.StringVar(&f.key, "tls-key", "", "the key of -tls-cert, a PEM `file`")
	fs.StringVar(&f.serverName, "tls-server-name", "", "the `name` the server's certificate must hold (default: the host of the address)")
}

// enabled reports whether a TLS flag was given.
func (f *tlsFlags) enabled() bool {
	return f.on || f.ca != "" || f.cert != "" || f.key != "" || f.serverName != ""
}

// config returns the TLS configuration of the flags, nil without any.
func (f *tlsFlags) config() (*tls.Config, error) {
	if !f.enabled() {
		return nil, nil
	}
	cfg, err := tlsfile.ClientConfig(tlsfile.ClientFiles{CA: f.ca, Cert: f.cert, Key: f.key}, f.serverName)
	if err != nil {
		return nil, fmt.Errorf("-tls flags: %w", err)
	}
	return cfg, nil
}

// tlsDial makes conn, dialled to addr, a TLS client connection with cfg
// and runs its handshake; the server name defaults to addr's host.
func tlsDial(conn net.Conn, addr string, cfg *tls.Config) (net.Conn, error) {
	if cfg.ServerName == "" {
		cfg = cfg.Clone()
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tc := tls.Client(conn, cfg)
	if err := tc.Handshake(); err != nil {
		return nil, fmt.Errorf("TLS handshake with %s: %w", addr, err)
	}
	return tc, nil
}
