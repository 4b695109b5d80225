package server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"sync/atomic"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// Buffer sizes of a binary connection. Requests are one byte and an auth
// frame at most 257, so a small reader suffices; a reply to a full request
// is 2,040 bytes, and pipelined replies are gathered up to outFlush before
// a write.
const (
	readerSize = 512
	outFlush   = 4096
)

// Serve accepts binary-protocol connections on l and serves each in its own
// goroutine until Shutdown or Close, after which it returns
// ErrServerClosed. Serve closes l.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, l)
		s.mu.Unlock()
		l.Close()
	}()

	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if s.closing.Load() {
				return ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) || isTemporary(err) {
				// Out of file descriptors and the like: back off as
				// net/http does, and keep serving.
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.logs.warn("accept", "accept failed; retrying", "err", err, "delay", delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		c := &conn{s: s, nc: nc}
		s.mu.Lock()
		if s.closing.Load() {
			s.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		if len(s.conns) >= s.cfg.MaxConns {
			s.mu.Unlock()
			s.m.closed("limit")
			nc.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.m.connOpened()
		go c.serve()
	}
}

// isTemporary reports accept errors worth retrying (EMFILE, ENFILE,
// ECONNABORTED), which net no longer marks as temporary.
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// conn is one binary connection.
type conn struct {
	s  *Server
	nc net.Conn

	interrupted atomic.Bool
	seq         atomic.Pointer[sequence] // set once the auth frame chose it
	dropped     atomic.Bool              // ended because its sequence stopped issuing
	inFlight    bool                     // owned by serve: replies were written, and may not have arrived yet
}

// interrupt makes a blocked read return, so that the connection ends after
// the replies it owes.
func (c *conn) interrupt() {
	c.interrupted.Store(true)
	c.nc.SetReadDeadline(time.Unix(1, 0))
}

// drop ends the connection because its sequence stopped issuing: a
// blocked read returns at once, and a blocked write (a client that does not
// read) within lingerTimeout; the replies written are still delivered.
func (c *conn) drop() {
	c.dropped.Store(true)
	c.nc.SetReadDeadline(time.Unix(1, 0))
	c.nc.SetWriteDeadline(time.Now().Add(lingerTimeout))
}

// Bounds of a lingering close (see linger). net/http waits 500 ms for a
// client to close; a second lets a client read its last replies, and
// 64 KiB of requests left unread is far more than any client pipelines.
const (
	lingerTimeout = time.Second
	lingerBytes   = 64 << 10
)

// linger ends a connection whose replies may still be in flight without a
// reset: closing a socket with input unread makes the kernel answer with a
// reset and drop the replies not yet sent. It half-closes, so the client
// reads every reply and then the end of the stream, and discards what the
// client still sends until it closes too, for at most lingerTimeout and
// lingerBytes. It reads through r, so a connection that lingers holds no
// more than r's small buffer.
func (c *conn) linger(r *bufio.Reader) {
	cw, ok := c.nc.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	deadline := time.Now().Add(lingerTimeout)
	c.nc.SetReadDeadline(deadline)
	r.Discard(r.Buffered()) // read already: not counted against lingerBytes
	for left := lingerBytes; left > 0; {
		n, err := r.Discard(left)
		left -= n
		if err == nil {
			return // lingerBytes read
		}
		if !errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(deadline) {
			return // the client closed, or the time is up
		}
		// Shutdown interrupted the read: the linger keeps its own bound.
		c.nc.SetReadDeadline(deadline)
	}
}

// serve runs the connection: the optional auth frame, then requests until
// an error, the idle timeout or Shutdown.
func (c *conn) serve() {
	s := c.s
	reason := "eof"
	var r *bufio.Reader
	defer func() {
		if c.dropped.Load() {
			reason = "not_ready"
		}
		if r != nil && c.lingers(reason) {
			c.linger(r)
		}
		c.nc.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		s.m.connClosed(reason)
		s.progress()
	}()
	// Without tokens every connection is the default sequence's: refuse
	// it at once while that sequence holds no worker ID, so a client
	// fails over without sending a request first.
	if set := s.set.Load(); !set.tokened && !set.list[0].holding() {
		s.logs.info("not_ready", "binary connection refused: its sequence holds no worker ID", "seq", set.list[0].name, "remote", c.nc.RemoteAddr())
		reason = "not_ready"
		return
	}
	r = bufio.NewReaderSize(c.nc, readerSize)
	seq, why := c.auth(r)
	if seq != nil {
		c.seq.Store(seq)
		if !seq.holding() { // its term ended before the Store
			s.logs.info("not_ready", "binary connection refused: its sequence holds no worker ID", "seq", seq.name, "remote", c.nc.RemoteAddr())
			reason = "not_ready"
			return
		}
	}
	if seq == nil {
		reason = why
		return
	}
	if seq.format != Format64 {
		s.logs.warn("format", "binary connection for a sequence that is not id64", "seq", seq.name, "format", seq.format, "remote", c.nc.RemoteAddr())
		reason = "format"
		return
	}

	var (
		ids      []id64.ID
		out      []byte
		deadline time.Time
		idle     = s.cfg.IdleTimeout
	)
	for {
		if r.Buffered() == 0 {
			if len(out) > 0 {
				if reason = c.flush(out); reason != "" {
					return
				}
				out = out[:0]
			}
			// Refresh the deadlines only when half used: a deadline is
			// a timer update, too dear for every request.
			if now := time.Now(); deadline.Sub(now) < idle/2 {
				deadline = now.Add(idle)
				c.nc.SetDeadline(deadline)
				if c.interrupted.Load() {
					reason = "shutdown"
					return
				}
				if c.dropped.Load() {
					reason = "not_ready"
					return
				}
			}
		}
		n, err := wire.ReadRequest(r)
		if err != nil {
			// A bad request byte comes out of the buffer: the replies to
			// the good requests read before it are still owed.
			c.flush(out)
			reason = c.readFailure(err, "request")
			return
		}
		if ids == nil {
			ids = make([]id64.ID, wire.MaxCount)
			out = make([]byte, 0, outFlush+wire.MaxCount*wire.IDSize)
		}
		if !s.begin() {
			reason = "shutdown"
			c.flush(out)
			return
		}
		start := time.Now()
		err = seq.fill64(ids[:n], s.stop)
		s.end()
		if err != nil {
			s.m.request("noeq", seq, n, start, err)
			reason = codeOf(err)
			s.logs.warn("closing/"+reason, "closing a binary connection", "seq", seq.name, "remote", c.nc.RemoteAddr(), "err", err)
			c.flush(out)
			return
		}
		for _, id := range ids[:n] {
			out = wire.AppendID(out, uint64(id))
		}
		s.m.request("noeq", seq, n, start, nil)
		if len(out) >= outFlush {
			if reason = c.flush(out); reason != "" {
				return
			}
			out = out[:0]
		}
	}
}

// lingers reports whether the close for reason must linger: at Shutdown,
// and after replies, unless the client ended the connection or no longer
// reads. A connection refused before any reply closes at once.
func (c *conn) lingers(reason string) bool {
	switch reason {
	case "shutdown":
		return true
	case "eof", "idle", "write":
		return false
	}
	return c.inFlight
}

// auth reads the optional auth frame and returns the connection's sequence,
// or nil and the reason to close.
func (c *conn) auth(r *bufio.Reader) (*sequence, string) {
	s := c.s
	set := s.set.Load()
	def := set.list[0]
	if len(def.tokens) > 0 {
		// A token is required: the whole frame within AuthTimeout.
		c.nc.SetReadDeadline(time.Now().Add(s.cfg.AuthTimeout))
	} else {
		c.nc.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
	}
	first, err := r.Peek(1)
	if err != nil {
		return nil, c.readFailure(err, "auth")
	}
	if first[0] != wire.AuthMarker {
		if len(def.tokens) > 0 {
			s.m.authFailed()
			s.logs.info("no_token", "binary connection without the required token", "remote", c.nc.RemoteAddr())
			return nil, "unauthorized"
		}
		return def, ""
	}
	c.nc.SetReadDeadline(time.Now().Add(s.cfg.AuthTimeout))
	token, _, err := wire.ReadAuth(r, nil)
	if err != nil {
		return nil, c.readFailure(err, "auth")
	}
	if !set.tokened {
		return def, "" // no tokens: the frame is read and ignored
	}
	seq := s.byToken(token)
	if seq == nil {
		s.m.authFailed()
		s.logs.info("wrong_token", "binary connection with a wrong token", "remote", c.nc.RemoteAddr())
		return nil, "unauthorized"
	}
	return seq, ""
}

// readFailure classifies a read error into a close reason, logging what an
// operator should see.
func (c *conn) readFailure(err error, during string) string {
	switch {
	case errors.Is(err, io.EOF) && during == "request":
		return "eof"
	case errors.Is(err, os.ErrDeadlineExceeded):
		if c.interrupted.Load() {
			return "shutdown"
		}
		if during == "auth" {
			return "auth_timeout"
		}
		return "idle"
	case errors.Is(err, wire.ErrZeroCount):
		c.s.logs.info("bad_request", "binary connection sent a request for 0 IDs", "remote", c.nc.RemoteAddr())
		return "bad_request"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "eof"
	}
	return "error"
}

// flush writes out; it returns a close reason on failure. The write
// deadline is the idle deadline: a client that stops reading its replies
// is cut off like an idle one.
func (c *conn) flush(out []byte) string {
	if len(out) == 0 {
		return ""
	}
	if _, err := c.nc.Write(out); err != nil {
		c.inFlight = false // the rest cannot be delivered
		return "write"
	}
	c.inFlight = true
	return ""
}
