package server

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/wire"
)

// Buffer sizes of a binary connection. Requests are one byte: a read
// takes up to inSize of them, which is all a client pipelines at once but
// for the largest bursts. A reply to a full request is 2,040 bytes, and
// pipelined replies are gathered up to outFlush before a write.
const (
	inSize   = 64
	outFlush = 4096
)

// replies are what a binary connection needs while it serves requests: the
// IDs of one request and the replies gathered before a write. A connection
// takes them from repliesPool when its requests arrive and gives them back
// when it has none left to serve, so that an idle one holds none.
type replies struct {
	ids [wire.MaxCount]id64.ID
	out []byte
}

var repliesPool = sync.Pool{New: func() any {
	return &replies{out: make([]byte, 0, outFlush+wire.MaxCount*wire.IDSize)}
}}

// Serve accepts binary-protocol connections on l and serves each in its own
// goroutine until Shutdown or Close, after which it returns
// ErrServerClosed. Serve closes l. A client whose first bytes are a TLS
// ClientHello is closed (see ServeTLS).
func (s *Server) Serve(l net.Listener) error { return s.serve(l, nil) }

// serve is Serve, over TLS with cfg when not nil.
func (s *Server) serve(l net.Listener, cfg *tls.Config) error {
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
		c := &conn{s: s, nc: nc, raw: nc}
		if cfg != nil {
			c.sniff = &sniffConn{Conn: nc}
			c.tc = tls.Server(c.sniff, cfg)
			c.nc = c.tc
		}
		// The first read's deadline is set here, before Shutdown can
		// see the connection, and on this goroutine's stack (see serve).
		c.nc.SetReadDeadline(time.Now().Add(s.firstRead()))
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
		go c.serve(nil)
	}
}

// firstRead is the time a binary connection has to send its first byte:
// the whole auth frame when the default sequence requires a token.
func (s *Server) firstRead() time.Duration {
	if s.set.Load().list[0].locked() {
		return s.cfg.AuthTimeout
	}
	return s.cfg.IdleTimeout
}

// isTemporary reports accept errors worth retrying (EMFILE, ENFILE,
// ECONNABORTED), which net no longer marks as temporary.
func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// conn is one binary connection.
type conn struct {
	s     *Server
	nc    net.Conn   // raw, or tc over TLS
	raw   net.Conn   // the TCP connection
	tc    *tls.Conn  // over TLS (ServeTLS); nil in plain text
	sniff *sniffConn // under tc: tells a plaintext client

	interrupted atomic.Bool
	seq         atomic.Pointer[sequence] // set once the auth frame chose it
	dropped     atomic.Bool              // ended because its sequence stopped issuing
	inFlight    bool                     // owned by serve: replies were written, and may not have arrived yet
	reset       bool                     // owned by serve: close with a reset, as noeqd does (refuseToken)
	deadline    time.Time                // owned by serve: the read and write deadline set last
	in          [inSize]byte             // owned by serve: the bytes read last
	pending     []byte                   // owned by serve: bytes read while a request waited (see watchPeer), not yet served
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
// A client still reading its replies keeps the connection a second more
// each time, up to lingerMax in all: a slow reader on a loaded machine
// drains megabytes of socket buffers in more than a second.
const (
	lingerTimeout = time.Second
	lingerBytes   = 64 << 10
	lingerMax     = 30 * time.Second
)

// linger ends a connection whose replies may still be in flight without a
// reset: closing a socket with input unread makes the kernel answer with a
// reset and drop the replies not yet sent. It half-closes, so the client
// reads every reply and then the end of the stream, and discards what the
// client still sends until it closes too. It ends after lingerTimeout, or
// once lingerBytes were discarded, unless the client read replies in the
// meantime (the kernel's count of bytes not yet acknowledged went down):
// then it goes on, for lingerMax at most. It reads into the connection's
// own small buffer, so a connection that lingers holds no more memory than
// an idle one.
func (c *conn) linger() {
	cw, ok := c.nc.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	now := time.Now()
	end, deadline := now.Add(lingerMax), now.Add(lingerTimeout)
	pending := unsent(c.raw)
	c.nc.SetReadDeadline(deadline)
	for left := lingerBytes; ; {
		n, err := c.nc.Read(c.in[:min(max(left, 1), inSize)])
		left -= n
		now := time.Now()
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return // the client closed
		}
		if left > 0 && now.Before(deadline) {
			if err != nil {
				// Shutdown interrupted the read: the linger keeps its own bound.
				c.nc.SetReadDeadline(deadline)
			}
			continue
		}
		// A bound is reached: go on only while the client reads.
		still := unsent(c.raw)
		if still <= 0 || pending >= 0 && still >= pending || !now.Before(end) {
			return // delivered, not read since, or too long in all
		}
		pending, left, deadline = still, lingerBytes, now.Add(lingerTimeout)
		if deadline.After(end) {
			deadline = end
		}
		c.nc.SetReadDeadline(deadline)
	}
}

// serve runs the connection until it must close, then closes it: its
// first bytes and the optional auth frame (when seq is nil), then its
// requests.
//
// An idle connection costs little more than its goroutine's stack, which
// is smallest (2 KiB, less what the runtime keeps to itself: 928 bytes on
// linux/amd64) only while no call has gone deeper: a stack that grew never
// shrinks back while its goroutine waits in a read. The read fits, from serve's small
// frame; serving requests may not (the generator's slow path, a contended
// lock), nor setting a deadline (the runtime's timers). So a connection
// holds replies only while it has requests to serve, and once they are
// served and the deadline set, if its stack has grown, it waits on a fresh
// goroutine, which runs serve with the connection's sequence.
func (c *conn) serve(seq *sequence) {
	var (
		in     []byte   // read, not yet served
		r      *replies // nil while idle
		reason string
		mark   byte // where this goroutine's stack is: it moves when the stack grows
		stack  = uintptr(unsafe.Pointer(&mark))
	)
	if seq == nil {
		seq, in, reason = c.open()
	}
	for reason == "" {
		if len(in) > 0 {
			if r == nil {
				r = repliesPool.Get().(*replies)
			}
			reason = c.request(seq, r, in[0])
			in = in[1:]
			if len(c.pending) > 0 {
				// Requests read while the last one waited.
				in = append(in[:len(in):len(in)], c.pending...)
				c.pending = nil
			}
			if reason == "" && len(r.out) >= outFlush {
				reason = c.flush(r)
			}
			continue
		}
		// Every request read is served: send the replies, give the
		// buffers back and wait for more.
		if r != nil {
			reason = c.flush(r)
			repliesPool.Put(r)
			r = nil
			if reason != "" {
				break
			}
		}
		// Refresh the deadlines only when half used: a deadline is a
		// timer update, too dear for every request.
		if now := time.Now(); c.deadline.Sub(now) < c.s.cfg.IdleTimeout/2 {
			c.deadline = now.Add(c.s.cfg.IdleTimeout)
			c.nc.SetDeadline(c.deadline)
			if reason = c.ending(); reason != "" {
				break
			}
		}
		// Over TLS the connection's buffers outweigh a stack: it keeps
		// its goroutine.
		if c.tc == nil && uintptr(unsafe.Pointer(&mark)) != stack {
			go c.serve(seq)
			return
		}
		in, reason = c.read("request")
	}
	if r != nil {
		// The replies to the requests served before a failure are
		// still owed.
		c.flush(r)
		repliesPool.Put(r)
	}
	c.close(reason)
}

// close closes the connection for reason, lingering when replies may be
// in flight, and unregisters it. A refused token closes as noeqd's does:
// noeqd reads the auth frame (or, when the first byte begins none, two
// bytes) and no further, so the bytes a client sent after them make its
// kernel answer with a reset. floed reads what came with the frame into
// its buffer; c.reset, set when that holds bytes past the frame, resets
// the connection as noeqd's kernel would.
func (c *conn) close(reason string) {
	if c.dropped.Load() {
		reason = "not_ready"
	}
	if c.lingers(reason) {
		c.linger()
	}
	if c.reset {
		if tc, ok := c.raw.(interface{ SetLinger(int) error }); ok {
			tc.SetLinger(0)
		}
	}
	c.nc.Close()
	s := c.s
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.m.connClosed(reason)
	s.progress()
}

// ending returns the reason to close a connection that Shutdown
// interrupted or whose sequence stopped issuing, once its deadline was
// set: either may have come before and been overwritten.
func (c *conn) ending() string {
	switch {
	case c.interrupted.Load():
		return "shutdown"
	case c.dropped.Load():
		return "not_ready"
	}
	return ""
}

// open refuses the connection while its sequence holds no worker ID, or
// reads its first bytes and the optional auth frame. It returns the
// connection's sequence and the bytes read after the frame, or the reason
// to close.
func (c *conn) open() (*sequence, []byte, string) {
	set := c.s.set.Load()
	def := set.list[0]
	// Without tokens every connection is the default sequence's: refuse
	// it at once while that sequence holds no worker ID, so a client
	// fails over without sending a request first.
	if c.tc != nil {
		if reason := c.handshake(); reason != "" {
			return nil, nil, reason
		}
	}
	if !set.tokened && !def.holding() {
		return nil, nil, c.notReady(def)
	}
	in, reason := c.read("auth")
	if reason != "" {
		return nil, nil, reason
	}
	seq := def
	switch {
	case c.tc == nil && looksLikeTLS(in):
		return nil, nil, c.tlsOnPlaintext()
	case in[0] == wire.AuthMarker:
		if seq, in, reason = c.auth(set, in); seq == nil {
			return nil, nil, reason
		}
	case def.locked():
		// noeqd reads two bytes, then closes.
		c.reset = len(in) > 2
		return nil, nil, c.unauthorized("no_token", "binary connection without the required token")
	}
	c.seq.Store(seq)
	if !seq.holding() { // its term ended before the Store
		return nil, nil, c.notReady(seq)
	}
	if seq.format != Format64 {
		return nil, nil, c.wrongFormat(seq)
	}
	return seq, in, ""
}

// auth reads the auth frame that in, the first bytes read, begins, and
// returns the sequence its token selects and the bytes read after the
// frame, or nil and the reason to close. The frame, up to 257 bytes, is
// read into a reply buffer, and no further: what follows stays unread.
func (c *conn) auth(set *seqSet, in []byte) (*sequence, []byte, string) {
	def := set.list[0]
	// The whole frame within AuthTimeout of its first byte.
	c.nc.SetReadDeadline(time.Now().Add(c.s.cfg.AuthTimeout))
	if reason := c.ending(); reason != "" {
		return nil, nil, reason
	}
	r := repliesPool.Get().(*replies)
	defer repliesPool.Put(r)
	frame := append(r.out[:0], in...)
	token, size, ok := wire.ParseAuth(frame)
	for !ok {
		n, err := io.ReadFull(c.nc, frame[len(frame):size])
		frame = frame[:len(frame)+n]
		if err != nil {
			return nil, nil, c.readFailure(err, "auth")
		}
		token, size, ok = wire.ParseAuth(frame)
	}
	in = in[min(size, len(in)):]
	if !set.tokened {
		return def, in, "" // no tokens: the frame is read and ignored
	}
	if seq := c.s.byToken(token); seq != nil {
		return seq, in, ""
	}
	// noeqd reads the frame, then closes.
	c.reset = len(in) > 0
	return nil, nil, c.unauthorized("wrong_token", "binary connection with a wrong token")
}

// request serves the request byte b, appending its reply to r.out; it
// returns a close reason on failure.
func (c *conn) request(seq *sequence, r *replies, b byte) string {
	s := c.s
	n, err := wire.ParseRequest(b)
	if err != nil {
		return c.readFailure(err, "request")
	}
	if !s.begin() {
		return "shutdown"
	}
	start := time.Now()
	w := waiter{s: s, arrival: start, c: c}
	err = seq.fill64(r.ids[:n], &w)
	w.done()
	s.end()
	if err != nil {
		return c.failed(seq, n, start, err)
	}
	for _, id := range r.ids[:n] {
		r.out = wire.AppendID(r.out, uint64(id))
	}
	s.m.request("noeq", seq, n, start, nil)
	return ""
}

// read reads into c.in and returns the bytes read, or the reason to close.
// A read that brings bytes and an error returns the bytes: the next read
// returns the error again.
func (c *conn) read(during string) ([]byte, string) {
	n, err := c.nc.Read(c.in[:])
	if n == 0 {
		return nil, c.readFailure(err, during)
	}
	return c.in[:n], ""
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

// The refusals and failures that close a connection: each counts or logs
// what an operator should see and returns the reason. They are calls of
// their own, so that their logging keeps out of the frames of the calls
// an idle connection waits in.

func (c *conn) notReady(seq *sequence) string {
	c.s.logs.info("not_ready", "binary connection refused: its sequence holds no worker ID", "seq", seq.name, "remote", c.nc.RemoteAddr())
	return "not_ready"
}

func (c *conn) unauthorized(key, msg string) string {
	c.s.m.authFailed()
	c.s.logs.info(key, msg, "remote", c.nc.RemoteAddr())
	return "unauthorized"
}

func (c *conn) wrongFormat(seq *sequence) string {
	c.s.logs.warn("format", "binary connection for a sequence that is not id64", "seq", seq.name, "format", seq.format, "remote", c.nc.RemoteAddr())
	return "format"
}

func (c *conn) failed(seq *sequence, n int, start time.Time, err error) string {
	c.s.m.request("noeq", seq, n, start, err)
	reason := codeOf(err)
	if reason == "client_gone" {
		return "eof" // the peer closed while its request waited
	}
	c.s.logs.warn("closing/"+reason, "closing a binary connection", "seq", seq.name, "remote", c.nc.RemoteAddr(), "err", err)
	return reason
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

// flush writes the replies gathered in r and empties it; it returns a
// close reason on failure. The write deadline is the idle deadline: a
// client that stops reading its replies is cut off like an idle one.
func (c *conn) flush(r *replies) string {
	out := r.out
	r.out = r.out[:0]
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
