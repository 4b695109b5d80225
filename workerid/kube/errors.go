package kube

import "errors"

var (
	// ErrNoClient: NewSource or NewCatalog was given no Kubernetes client.
	ErrNoClient = errors.New("floe: no kubernetes client")
	// ErrNamespace: a namespace that is empty or not a DNS label.
	ErrNamespace = errors.New("floe: kubernetes namespace must be a DNS label")
	// ErrPrefix: a Lease name prefix that is empty, or that does not make
	// valid object names (lower-case DNS-1123 subdomains) with the worker
	// IDs after it.
	ErrPrefix = errors.New("floe: lease name prefix must begin valid DNS-1123 object names")
	// ErrIDs: a namespace of fewer than one worker ID.
	ErrIDs = errors.New("floe: worker ID count must be at least 1")
	// ErrTTL: a lease time to live below one second.
	ErrTTL = errors.New("floe: lease TTL must be at least one second")
	// ErrRequestTimeout: a negative request timeout.
	ErrRequestTimeout = errors.New("floe: request timeout must not be negative")
	// ErrCluster: a cluster name that is not a DNS label of 1 to 40
	// bytes.
	ErrCluster = errors.New("floe: cluster name must be a DNS label of 1 to 40 bytes")
	// ErrCorrupt: an object floe wrote that does not read back as what it
	// holds (a hand edit, another program). The error names the object and
	// the field; floe never guesses a reservation from it.
	ErrCorrupt = errors.New("floe: corrupt lease object")
	// ErrForbidden: the API server refused a request of this identity
	// (HTTP 403): its Role lacks a verb on leases in the namespace. The
	// error names the namespace and the verb.
	ErrForbidden = errors.New("floe: kubernetes API request forbidden")
	// ErrUnauthorized: the API server refused the credentials (HTTP 401),
	// for example an expired token.
	ErrUnauthorized = errors.New("floe: kubernetes API credentials refused")
)
