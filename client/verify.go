package client

import (
	"fmt"
	"time"

	"github.com/floeid/floe/id64"
)

// Stats counts what a Client has seen since New. Every field only grows. A
// Stats value is a copy; take a new one to see later counts.
type Stats struct {
	// InvalidReplies counts the replies rejected with ErrInvalidReply:
	// IDs that no live server of the client's layout issues. Each one
	// failed its attempt and dropped its connection.
	InvalidReplies uint64 `json:"invalid_replies"`
}

// Stats returns the client's counts so far.
func (c *Client) Stats() Stats {
	return Stats{InvalidReplies: c.invalidReplies.Load()}
}

// verify checks the IDs of one reply read on cn: each is above the one
// before it on the connection, and the first and last (hence all) lie
// within the skew bound of the local clock. It costs one compare per ID
// and two ticks per reply; only a bad reply pays for the message.
func (c *Client) verify(cn *conn, ids []uint64) error {
	prev := cn.last
	for _, id := range ids {
		if id <= prev {
			return c.invalid(cn, ids)
		}
		prev = id
	}
	now := c.opts.now()
	if ids[0] < uint64(c.opts.layout.First(now.Add(-c.opts.maxSkew))) ||
		prev > uint64(c.opts.layout.Last(now.Add(c.opts.maxSkew))) {
		return c.invalid(cn, ids)
	}
	cn.last = prev
	return nil
}

// invalid counts a reply that failed verify and says what is wrong with
// it: the first ID out of the time bound, else the first that does not
// increase.
func (c *Client) invalid(cn *conn, ids []uint64) error {
	c.invalidReplies.Add(1)
	l, skew := c.opts.layout, c.opts.maxSkew
	now := c.opts.now()
	lo, hi := uint64(l.First(now.Add(-skew))), uint64(l.Last(now.Add(skew)))
	for _, id := range ids {
		if err := l.CheckID(id64.ID(id)); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidReply, err)
		}
		if id < lo || id > hi {
			return fmt.Errorf("%w: ID %d reads as %s under the layout %v, more than %v from the local clock (%s)",
				ErrInvalidReply, id, l.Time(id64.ID(id)).UTC().Format(time.RFC3339Nano), l, skew, now.UTC().Format(time.RFC3339Nano))
		}
	}
	prev := cn.last
	for _, id := range ids {
		if id <= prev {
			return fmt.Errorf("%w: ID %d does not increase on the connection: %d came before it", ErrInvalidReply, id, prev)
		}
		prev = id
	}
	return fmt.Errorf("%w: %d IDs", ErrInvalidReply, len(ids)) // not reached: verify found a fault
}
