//go:build unix

package floedproc

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// ErrNotOurs: a connection to a daemon's address reached another process.
// The OS reuses a port once the daemon that held it has exited, so an
// address names a process only while that process runs: a connection made
// after it exited may reach whatever listens there now (the next
// incarnation of a restarted node, another node, another test's server).
var ErrNotOurs = errors.New("floedproc: the connection reached another process than the daemon's")

// ownerPoll is how often owns looks again for a connection the daemon
// has not accepted yet.
const ownerPoll = time.Millisecond

// Dial opens a binary-protocol connection to p, as Dial does to p.Bin,
// and returns it only once it is p's: accepted by p's own listener (as
// /proc shows, where there is one). A connection another process took
// gives ErrNotOurs, so that IDs are credited to the process that issued
// them, never to the one that listened there before. A daemon that does
// not accept the connection within timeout (a paused one) gives an error
// too, as its reply would not come in time.
func (p *Proc) Dial(token string, timeout time.Duration) (*Conn, error) {
	deadline := time.Now().Add(timeout)
	nc, err := p.dialOwn(context.Background(), p.Bin, deadline)
	if err != nil {
		return nil, err
	}
	c, err := handshake(nc, token, timeout)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// DialContext is a net.Dialer's DialContext for an http.Transport that
// asks p: a connection to addr that another process took gives
// ErrNotOurs, as in Dial.
func (p *Proc) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	return p.dialOwn(ctx, addr, deadline)
}

// dialOwn connects to addr and waits until deadline for the connection to
// show p as its owner.
func (p *Proc) dialOwn(ctx context.Context, addr string, deadline time.Time) (net.Conn, error) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	for {
		// Exited first: once p has, its socket is gone, and a connection
		// not accepted yet may be another process's.
		exited := p.Exited()
		switch socketOwner(p.Pid(), nc) {
		case ownerKnownNot:
			// No /proc: a connection made before p exited was p's, since
			// p held the port until then.
			if !exited {
				return nc, nil
			}
		case ownerPid:
			return nc, nil
		case ownerClosed:
			// Closed already, as a daemon without a worker ID closes at
			// once: p's if p had not exited, since p held the port until
			// then; the caller reads the end of the stream.
			if !exited {
				return nc, nil
			}
		case ownerPending:
			if !exited && time.Now().Before(deadline) {
				time.Sleep(ownerPoll)
				continue
			}
			if !exited {
				nc.Close()
				return nil, fmt.Errorf("floedproc: %s (pid %d) did not accept a connection to %s in time", p.Name, p.Pid(), addr)
			}
		}
		nc.Close()
		return nil, fmt.Errorf("%w: %s (pid %d) at %s", ErrNotOurs, p.Name, p.Pid(), addr)
	}
}

// owner is what /proc tells of the process on the far end of a loopback
// connection.
type owner int

const (
	ownerKnownNot owner = iota // no /proc to tell
	ownerPending               // not accepted by any process yet
	ownerPid                   // accepted by the process asked about
	ownerOther                 // accepted by another process
	ownerClosed                // closed by whichever process accepted it
)
