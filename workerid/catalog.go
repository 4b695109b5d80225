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
	// Retired is the latest generation destroyed under the name that
	// reserved any tick, or the zero Retired. A generation that follows
	// it issues only after it (see Retired).
	Retired Retired
	// Tokens are the hashes of the tokens that select the sequence on
	// every node (a binary connection's auth frame, an HTTP request's
	// bearer token), set by Create; none leaves the sequence open to all,
	// unless a node gives it tokens of its own.
	Tokens Tokens
}

// Retired is what a destroyed generation of a sequence could have issued:
// the highest tick of its worker IDs' reservations, or for a worker ID
// that was released cleanly and not claimed since, its last tick. A
// holder of a destroyed generation can go on issuing until its local
// lease deadline (a partition, a pause), but never above its reservation,
// so a generation created after it that issues only after Tick, as Spec
// counts ticks, repeats none of its IDs. Destroy records it; Create and
// Get return it with the sequence. A destroyed generation that reserved
// nothing leaves the previous Retired in place.
type Retired struct {
	Gen  int64  // the destroyed generation; zero when there was none
	Spec string // its definition
	Tick uint64 // the highest tick it could have issued
}

// Catalog keeps a cluster's named sequences. Implementations are safe for
// concurrent use.
type Catalog interface {
	// Create defines a sequence, with the hashes of its tokens, if any.
	// Defining one that exists with the same Spec returns the existing
	// one, with its tokens, when no tokens are given or the same set;
	// with another Spec or other tokens it is an error wrapping
	// ErrConflict.
	Create(ctx context.Context, name, spec string, tokens ...TokenHash) (Sequence, error)
	// Get returns the named sequence, or an error wrapping ErrNotFound.
	Get(ctx context.Context, name string) (Sequence, error)
	// List returns every sequence, ordered by name.
	List(ctx context.Context) ([]Sequence, error)
	// Destroy removes the named sequence with its worker IDs and
	// reservations, in one atomic step that records what the generation
	// could have issued as the name's Retired: every lease on it is lost,
	// and its holders stop. It returns an error wrapping ErrNotFound when
	// there is no such sequence.
	Destroy(ctx context.Context, name string) error
	// WaitGone blocks until the catalog no longer has generation gen of
	// the named sequence (it was destroyed, or destroyed and created
	// again) and returns nil, or until ctx ends and returns ctx's error.
	// It follows the catalog's changes as they happen (a watch) or, where
	// the engine has none, reads it at least once a second; a catalog out
	// of reach is retried, not reported.
	WaitGone(ctx context.Context, name string, gen int64) error
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
