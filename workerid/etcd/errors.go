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
