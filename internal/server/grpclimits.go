package server

import (
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// The limits of the gRPC listeners, beside maxGRPCRequest. The idle
// timeout and the connection limit are the binary protocol's
// (Config.IdleTimeout, Config.MaxConns), so that one setting bounds both
// kinds of long-lived connection.
const (
	// grpcMaxStreams bounds the calls in progress on one connection, as
	// Go's own HTTP/2 server does by default. A client keeps the calls
	// over it waiting until one ends; it does not fail them.
	grpcMaxStreams = 250
	// grpcPingTimeout is how long a client has to answer the ping that
	// the server sends after Config.IdleTimeout without a frame from it:
	// then the connection is closed. A client that vanished without
	// closing its connection, while a Stream is open, is found this way.
	grpcPingTimeout = 20 * time.Second
	// grpcMinPing is the shortest interval between a client's keepalive
	// pings that the server accepts, with or without calls in progress:
	// grpc-go's own lower bound for a client's keepalive. A client that
	// pings more often is sent GOAWAY (too_many_pings) and cut.
	grpcMinPing = 10 * time.Second
)

// grpcLimits returns the server options of the limits: the streams a
// connection, a connection without a call for Config.IdleTimeout closed
// (GOAWAY: its client reconnects when it next calls), a silent one pinged
// and a client's pings bounded.
func (s *Server) grpcLimits() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxConcurrentStreams(grpcMaxStreams),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: s.cfg.IdleTimeout,
			Time:              max(s.cfg.IdleTimeout, time.Second), // grpc-go's least

			Timeout: grpcPingTimeout,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: grpcMinPing, PermitWithoutStream: true}),
	}
}

// grpcListener bounds the open gRPC connections of a server, over all its
// gRPC listeners, at Config.MaxConns: a connection over it is closed as
// it comes, before its TLS handshake, and logged at most every logEvery.
type grpcListener struct {
	net.Listener
	s *Server
}

func (l *grpcListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.s.grpcOpen.Add(1) <= int64(l.s.cfg.MaxConns) {
			return &grpcConn{Conn: c, s: l.s}, nil
		}
		l.s.grpcOpen.Add(-1)
		c.Close()
		l.s.logs.warn("grpc/limit", "gRPC connection over the connection limit: closed", "limit", l.s.cfg.MaxConns, "remote", c.RemoteAddr().String())
	}
}

// grpcConn is an open gRPC connection: its first Close counts it closed.
type grpcConn struct {
	net.Conn
	s    *Server
	once sync.Once
}

func (c *grpcConn) Close() error {
	c.once.Do(func() { c.s.grpcOpen.Add(-1) })
	return c.Conn.Close()
}
