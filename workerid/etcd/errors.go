package etcd

import "errors"

var (
	// ErrNoClient: NewSource or NewCatalog was given no etcd client.
	ErrNoClient = errors.New("floe: no etcd client")
	// ErrPrefix: a key prefix that is empty or does not end in "/".
	ErrPrefix = errors.New("floe: etcd key prefix must be non-empty and end in /")
	// ErrIDs: a namespace of fewer than one worker ID.
	ErrIDs = errors.New("floe: worker ID count must be at least 1")
	// ErrTTL: a lease time to live below one second.
	ErrTTL = errors.New("floe: lease TTL must be at least one second")
	// ErrRequestTimeout: a negative request timeout.
	ErrRequestTimeout = errors.New("floe: request timeout must not be negative")
	// ErrCorrupt: a value in etcd that does not decode as what its key
	// holds. A claim that reads one fails rather than guess a floor.
	ErrCorrupt = errors.New("floe: corrupt value in etcd")
)

// The causes of an *EndpointError, which matches the one that applies.
var (
	// ErrUnreachable: no connection to the endpoint (refused, no route,
	// a DNS error).
	ErrUnreachable = errors.New("floe: etcd endpoint out of reach")
	// ErrNotTrusted: the server's certificate does not verify against the
	// tls.Config's RootCAs (TLSFiles.CA), or the system's.
	ErrNotTrusted = errors.New("floe: etcd server certificate not trusted")
	// ErrCertRefused: the server refused the client's certificate, or the
	// lack of one (TLSFiles.Cert and Key).
	ErrCertRefused = errors.New("floe: etcd server refused the client certificate")
	// ErrNotTLS: the client speaks TLS to a plain port.
	ErrNotTLS = errors.New("floe: etcd endpoint does not speak TLS")
	// ErrTLSRequired: the client speaks plain TCP to a TLS port.
	ErrTLSRequired = errors.New("floe: etcd endpoint wants TLS")
	// ErrNoReply: the server took the connection and did not answer
	// within the probe's bound.
	ErrNoReply = errors.New("floe: etcd endpoint does not answer")
	// ErrNotEtcd: the server answered, not in etcd's protocol (gRPC over
	// HTTP/2).
	ErrNotEtcd = errors.New("floe: not an etcd endpoint")
)
