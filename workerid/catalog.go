package workerid

import (
	"context"
	"errors"
)

// Sequence is a named sequence as a cluster defines it once for every node
// (snowcast's sequencers).
type Sequence struct {
	// Name names the sequence: 1..64 bytes of [A-Za-z0-9_.-].
	Name string
	// Spec is the sequence's canonical definition (format, layout, epoch),
	// opaque to the catalog. Nodes compare it byte for byte.
	Spec string
	// Gen tells apart the sequences that held one name: a sequence
	// destroyed and created again gets a new one, and with it a new set of
	// worker IDs and reservations. Set by Create.
	Gen int64
}

// Catalog keeps a cluster's named sequences. Implementations are safe for
// concurrent use.
type Catalog interface {
	// Create defines a sequence. Defining one that exists with the same
	// Spec returns the existing one; with another Spec it is an error
	// wrapping ErrConflict.
	Create(ctx context.Context, name, spec string) (Sequence, error)
	// Get returns the named sequence, or an error wrapping ErrNotFound.
	Get(ctx context.Context, name string) (Sequence, error)
	// List returns every sequence, ordered by name.
	List(ctx context.Context) ([]Sequence, error)
	// Destroy removes the named sequence with its worker IDs and
	// reservations: every lease on it is lost, and its holders stop. It
	// returns an error wrapping ErrNotFound when there is no such sequence.
	Destroy(ctx context.Context, name string) error
}

var (
	// ErrConflict: a sequence exists under the name with another definition.
	ErrConflict = errors.New("floe: sequence exists with another definition")
	// ErrNotFound: no sequence has the name.
	ErrNotFound = errors.New("floe: no such sequence")
	// ErrName: a sequence name that is empty, longer than 64 bytes, has
	// bytes other than [A-Za-z0-9_.-], or is "." or ".." (which a URL path
	// cannot carry to the admin API).
	ErrName = errors.New("floe: invalid sequence name")
)

// ValidName reports whether name is a valid sequence name.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 || name == "." || name == ".." {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}
