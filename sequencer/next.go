package sequencer

import (
	"context"
	"fmt"

	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// Issuing, and the end of a term: a call loads the published term, takes
// an ID from its generator and loads the term again. If the term ended in
// between, the ID is dropped and the call tries the next term, or fails.
// An ID a call returns was therefore issued before its term was
// unpublished, and a release, which reads the generator's last tick after
// unpublishing, records a tick at or above every ID returned: the next
// holder, starting above it, repeats none. The second load costs a plain
// read on the fast path, where a lock or a count of calls in progress
// would cost a contended write.
//
// A lease with a local deadline (etcd, Redis) ends the term by itself
// when it passes: the fuse unpublishes the term at once, whatever a
// reservation write in flight is doing. Until the fuse runs, a call drops
// the IDs it took past the deadline (inTime) and fails with ErrNotReady.

// Next64 returns a new ID of an id64 sequence. It waits at the reservation
// ceiling for the keeper to extend the reservation, up to MaxWait. It fails
// with a *NotReadyError when the sequencer holds no worker ID (claiming,
// detached, destroyed, closed; a lease lost while the call waited at the
// ceiling included) or its lease passed its local deadline, with an error
// wrapping ErrFormat on a sequence of another format, and as the generator
// does (a *floe.ClockError, a *floe.CeilingError, floe.ErrTimeExhausted).
func (s *Sequencer) Next64() (id64.ID, error) { return s.next64(context.Background()) }

func (s *Sequencer) next64(ctx context.Context) (id64.ID, error) {
	if t := s.term.Load(); t != nil && t.g64 != nil {
		if id, err := t.g64.Next(); err == nil && s.term.Load() == t && s.inTime(t, uint64(id)>>t.shift) {
			return id, nil
		}
	}
	var dst [1]id64.ID
	_, err := s.NextN64Context(ctx, dst[:])
	return dst[0], err
}

// NextN64 fills dst with new, increasing IDs of an id64 sequence, as
// Next64 does. It returns how many it wrote: len(dst), or fewer with the
// error that stopped it.
func (s *Sequencer) NextN64(dst []id64.ID) (int, error) {
	return s.NextN64Context(context.Background(), dst)
}

// NextN64Context is NextN64 with ctx bounding the wait at the reservation
// ceiling: the wait ends at MaxWait, at ctx's deadline or when ctx is
// done, whichever comes first, and the call then fails with the
// *floe.CeilingError. A ctx already done never waits. A server passes each
// request's context, so that a request waits at most its own bound and a
// client that went away stops waiting.
func (s *Sequencer) NextN64Context(ctx context.Context, dst []id64.ID) (int, error) {
	i := 0
	for i < len(dst) {
		t := s.term.Load()
		if t == nil {
			return i, s.notReady()
		}
		if t.g64 == nil {
			return i, s.formatError(Format64)
		}
		n, err := t.g64.NextN(dst[i:])
		if s.term.Load() != t {
			continue // the term ended: its IDs are dropped
		}
		if n > 0 && !s.inTime(t, uint64(dst[i+n-1])>>t.shift) {
			return i, s.pastDeadline(t) // its IDs are dropped
		}
		i += n
		if err != nil && !s.awaitRaise(ctx, t, err) {
			if s.term.Load() != t {
				continue // t ended during the wait: the next term, or ErrNotReady
			}
			return i, s.unraised(t, err)
		}
	}
	return i, nil
}

// Next80 returns a new ID of an id80 sequence with the metabyte meta (see
// id80.Generator.New), as Next64 does.
func (s *Sequencer) Next80(meta byte) (id80.ID, error) {
	return s.next80(context.Background(), meta)
}

func (s *Sequencer) next80(ctx context.Context, meta byte) (id80.ID, error) {
	for {
		t := s.term.Load()
		if t == nil {
			return id80.ID{}, s.notReady()
		}
		if t.g80 == nil {
			return id80.ID{}, s.formatError(Format80)
		}
		id, err := t.g80.New(meta)
		if s.term.Load() != t {
			continue
		}
		if err == nil {
			if !s.inTime(t, id.Timestamp()) {
				return id80.ID{}, s.pastDeadline(t)
			}
			return id, nil
		}
		if !s.awaitRaise(ctx, t, err) {
			if s.term.Load() != t {
				continue
			}
			return id80.ID{}, s.unraised(t, err)
		}
	}
}

// Next96 returns a new ID of an id96 sequence, as Next64 does.
func (s *Sequencer) Next96() (id96.ID, error) {
	return s.next96(context.Background())
}

func (s *Sequencer) next96(ctx context.Context) (id96.ID, error) {
	for {
		t := s.term.Load()
		if t == nil {
			return id96.ID{}, s.notReady()
		}
		if t.g96 == nil {
			return id96.ID{}, s.formatError(Format96)
		}
		id, err := t.g96.Next()
		if s.term.Load() != t {
			continue
		}
		if err == nil {
			if !s.inTime(t, id.Tick()) {
				return id96.ID{}, s.pastDeadline(t)
			}
			return id, nil
		}
		if !s.awaitRaise(ctx, t, err) {
			if s.term.Load() != t {
				continue
			}
			return id96.ID{}, s.unraised(t, err)
		}
	}
}

// Next128 returns a new ID of an id128 sequence, a version-7 UUID, as
// Next64 does.
func (s *Sequencer) Next128() (id128.ID, error) {
	return s.next128(context.Background())
}

func (s *Sequencer) next128(ctx context.Context) (id128.ID, error) {
	for {
		t := s.term.Load()
		if t == nil {
			return id128.ID{}, s.notReady()
		}
		if t.g128 == nil {
			return id128.ID{}, s.formatError(Format128)
		}
		id, err := t.g128.Next()
		if s.term.Load() != t {
			continue
		}
		if err == nil {
			if !s.inTime(t, id.Tick()) {
				return id128.ID{}, s.pastDeadline(t)
			}
			return id, nil
		}
		if !s.awaitRaise(ctx, t, err) {
			if s.term.Load() != t {
				continue
			}
			return id128.ID{}, s.unraised(t, err)
		}
	}
}

// AppendNext appends the text of a new ID of the sequence's format to dst,
// as Next64, Next80 (metabyte 0), Next96 or Next128 (the canonical
// 8-4-4-4-12 text) does.
func (s *Sequencer) AppendNext(dst []byte) ([]byte, error) {
	return s.AppendNextContext(context.Background(), dst)
}

// AppendNextContext is AppendNext with ctx bounding the wait at the
// reservation ceiling, as NextN64Context does.
func (s *Sequencer) AppendNextContext(ctx context.Context, dst []byte) ([]byte, error) {
	switch s.def.Format {
	case Format80:
		id, err := s.next80(ctx, 0)
		if err != nil {
			return dst, err
		}
		return id.AppendText(dst)
	case Format96:
		id, err := s.next96(ctx)
		if err != nil {
			return dst, err
		}
		return id.AppendText(dst)
	case Format128:
		id, err := s.next128(ctx)
		if err != nil {
			return dst, err
		}
		return id.AppendText(dst)
	}
	id, err := s.next64(ctx)
	if err != nil {
		return dst, err
	}
	return id.AppendText(dst)
}

// AppendNextBinary appends the binary form of a new ID of the sequence's
// format to dst (8, 10, 12 or 16 bytes, big-endian, as each format's
// AppendBinary writes it), as AppendNext does its text.
func (s *Sequencer) AppendNextBinary(dst []byte) ([]byte, error) {
	return s.AppendNextBinaryContext(context.Background(), dst)
}

// AppendNextBinaryContext is AppendNextBinary with ctx bounding the wait at
// the reservation ceiling, as NextN64Context does.
func (s *Sequencer) AppendNextBinaryContext(ctx context.Context, dst []byte) ([]byte, error) {
	switch s.def.Format {
	case Format80:
		id, err := s.next80(ctx, 0)
		if err != nil {
			return dst, err
		}
		return id.AppendBinary(dst)
	case Format96:
		id, err := s.next96(ctx)
		if err != nil {
			return dst, err
		}
		return id.AppendBinary(dst)
	case Format128:
		id, err := s.next128(ctx)
		if err != nil {
			return dst, err
		}
		return id.AppendBinary(dst)
	}
	id, err := s.next64(ctx)
	if err != nil {
		return dst, err
	}
	return id.AppendBinary(dst)
}

// unraised is the error of a call that waited at the ceiling of t in vain,
// with t still published: err, the *floe.CeilingError, unless t's lease
// passed its local deadline meanwhile.
func (s *Sequencer) unraised(t *term, err error) error {
	if t.left != nil && t.left() <= 0 {
		return s.pastDeadline(t)
	}
	return err
}

func (s *Sequencer) formatError(want Format) error {
	return fmt.Errorf("%w: sequence %q issues %s, not %s", ErrFormat, s.name, s.def.Format, want)
}
