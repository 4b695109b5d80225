package redis

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrUnsafe: the Redis server does not keep worker IDs safely (see
	// Check); an *UnsafeError lists why.
	ErrUnsafe = errors.New("floe: redis server is unsafe for worker IDs")
	// ErrIDs: Config.IDs is not in 1..MaxIDs.
	ErrIDs = errors.New("floe: redis worker ID count out of range")
	// ErrTTL: Config.TTL is below one second.
	ErrTTL = errors.New("floe: redis lease TTL below one second")
	// ErrTimeout: Config.Timeout is negative or above Config.TTL.
	ErrTimeout = errors.New("floe: redis request timeout out of range")
	// ErrOwner: Config.Owner is longer than 255 bytes or not UTF-8, or no
	// host name could be read for it.
	ErrOwner = errors.New("floe: invalid redis owner name")
	// ErrNotOwner: the owner key of the worker ID no longer holds the
	// lease's token: it expired, was deleted, or another holder took it.
	ErrNotOwner = errors.New("floe: redis owner key holds another token")
	// ErrExpired: the local deadline of the lease (the send time of its last
	// successful renewal plus the TTL) passed.
	ErrExpired = errors.New("floe: worker ID lease deadline passed")
	// ErrBadReservation: a reservation key holds something else than
	// "R:last:owner".
	ErrBadReservation = errors.New("floe: invalid redis reservation value")
	// ErrBadReply: a script answered with something else than it returns.
	ErrBadReply = errors.New("floe: unexpected reply from a redis script")
)

// UnsafeError reports why a Redis server cannot keep worker IDs safely. It
// matches ErrUnsafe.
type UnsafeError struct {
	Addr    string   // the server's address, when known
	Reasons []string // each failed condition, with its fix
}

func (e *UnsafeError) Error() string {
	var b strings.Builder
	b.WriteString("floe: redis server ")
	if e.Addr != "" {
		b.WriteString(e.Addr + " ")
	}
	b.WriteString("is unsafe for worker IDs: ")
	b.WriteString(strings.Join(e.Reasons, "; "))
	b.WriteString(" (Config.Unsafe, floed --redis-unsafe, runs anyway at the risk of duplicate IDs)")
	return b.String()
}

// Unwrap returns ErrUnsafe.
func (e *UnsafeError) Unwrap() error { return ErrUnsafe }

// scriptError makes the error reply of a script that found a reservation
// key it cannot read (FLOE_BADRESERVATION) match ErrBadReservation.
func scriptError(err error) error {
	if isRedisError(err) && strings.HasPrefix(err.Error(), "FLOE_BADRESERVATION ") {
		return fmt.Errorf("%w: %w", ErrBadReservation, err)
	}
	return err
}

// The causes of an *EndpointError, which matches the one that applies.
var (
	// ErrUnreachable: no connection to the server (refused, no route, a
	// DNS error).
	ErrUnreachable = errors.New("floe: redis server out of reach")
	// ErrNotTrusted: the server's certificate does not verify against the
	// tls.Config's RootCAs (TLSFiles.CA), or the system's.
	ErrNotTrusted = errors.New("floe: redis server certificate not trusted")
	// ErrCertRefused: the server refused the client's certificate, or the
	// lack of one (TLSFiles.Cert and Key).
	ErrCertRefused = errors.New("floe: redis server refused the client certificate")
	// ErrNotTLS: the client speaks TLS to a plain port.
	ErrNotTLS = errors.New("floe: redis port does not speak TLS")
	// ErrTLSRequired: the client speaks plain TCP to a TLS port.
	ErrTLSRequired = errors.New("floe: redis port wants TLS")
	// ErrNoReply: the server took the connection and did not answer
	// within the probe's bound.
	ErrNoReply = errors.New("floe: redis server does not answer")
	// ErrNotRedis: the server answered, not in Redis's protocol (RESP).
	ErrNotRedis = errors.New("floe: not a redis server")
)
