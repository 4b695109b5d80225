package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"github.com/floeid/floe/internal/floev1"
	"github.com/floeid/floe/internal/wire"
)

// benchChunkIDs is how many IDs one block of a connection's ID store holds:
// 512 KiB, so storing 4M IDs/s costs a few dozen allocations a second.
const benchChunkIDs = 1 << 16

// benchRun is the state the connections of a run share.
type benchRun struct {
	cfg    *benchConfig // immutable
	start  time.Time    // immutable; its monotonic reading times everything
	stop   atomic.Bool  // set on interrupt: send no more requests
	failed atomic.Int64 // connections that ended with an error
}

// benchConn is one connection and its results. Its fields other than
// completed belong to the goroutine running run until it returns.
type benchConn struct {
	id    int
	conn  net.Conn
	limit int64 // requests to send after the warmup; -1: no limit

	// completed counts the replies so far, warmup included, for the
	// progress line.
	completed atomic.Uint64

	hist       benchHist
	lag        benchLag
	requests   uint64        // requests sent after the warmup and answered
	lastReply  time.Duration // when the last of those was answered, since the start
	received   uint64        // IDs received, warmup included
	last       uint64        // the last ID received
	ids        [][]uint64    // every ID received, in blocks, when checking
	violations uint64        // IDs not greater than the one before
	violation  [2]uint64     // the first violation: the ID before, the ID
	scratch    [wire.MaxCount]uint64
	err        error

	// Over HTTP (runHTTP) the IDs are keys: the last one, every one when
	// checking, and the first violation.
	lastKey      benchKey
	keys         [][]benchKey
	violationKey [2]benchKey

	// Over gRPC (runGRPC) conn is nil: the connection is cc.
	cc  *grpc.ClientConn
	rpc floev1.IDsClient
}

// run sends requests and reads replies until the run ends, the request
// limit is reached or the connection fails, then closes the connection.
//
// It keeps up to pipeline requests outstanding (1: send one, read its
// reply, repeat) and reads replies into one buffer large enough for all of
// them, so the loop allocates nothing but the blocks of the ID store. Each
// reply is timed from the send of its request, which is taken from a ring
// of send times in request order; all replies of one read share its time.
func (w *benchConn) run(r *benchRun) {
	defer w.conn.Close()
	cfg := r.cfg
	size := cfg.batch * wire.IDSize
	depth := cfg.pipeline
	reqs := bytes.Repeat([]byte{byte(cfg.batch)}, depth)
	buf := make([]byte, depth*size)
	sent := make([]time.Duration, depth)
	end := time.Duration(math.MaxInt64)
	if cfg.duration > 0 {
		end = cfg.warmup + cfg.duration
	}
	left := w.limit
	head, out, have := 0, 0, 0 // oldest outstanding request, how many, bytes of its reply read
	sending := true
	var refresh time.Duration
	for {
		now := time.Since(r.start)
		if now >= refresh {
			// A deadline refreshed a few times per timeout: a silent
			// server fails the read instead of hanging the run.
			if err := w.conn.SetDeadline(r.start.Add(now + cfg.timeout)); err != nil {
				w.fail(r, err)
				return
			}
			refresh = now + cfg.timeout/4
		}
		if sending && (now >= end || left == 0 || r.stop.Load()) {
			sending = false
		}
		if sending && out < depth {
			k := depth - out
			if left > 0 && now >= cfg.warmup {
				k = int(min(int64(k), left))
				left -= int64(k)
			}
			if _, err := w.conn.Write(reqs[:k]); err != nil {
				w.fail(r, err)
				return
			}
			for range k {
				i := head + out
				if i >= depth {
					i -= depth
				}
				sent[i] = now
				out++
			}
		}
		if out == 0 {
			return
		}
		n, err := w.conn.Read(buf[have : out*size])
		have += n
		if have >= size {
			done := time.Since(r.start)
			p := 0
			for ; have-p >= size; p += size {
				w.reply(buf[p:p+size], r, sent[head], done)
				if head++; head == depth {
					head = 0
				}
				out--
			}
			have = copy(buf, buf[p:have])
			w.completed.Add(uint64(p / size))
		}
		if err != nil {
			w.fail(r, err)
			return
		}
	}
}

// reply decodes and checks one reply, and times it and the lag of its IDs'
// time when its request was sent after the warmup.
func (w *benchConn) reply(b []byte, r *benchRun, sentAt, done time.Duration) {
	cfg := r.cfg
	n := len(b) / wire.IDSize
	ids := w.scratch[:n]
	if cfg.check {
		ids = w.store(n)
	}
	wire.DecodeIDs(ids, b)
	if w.received > 0 && ids[0] <= w.last {
		w.violate(w.last, ids[0])
	}
	for i := 1; i < n; i++ {
		if ids[i] <= ids[i-1] {
			w.violate(ids[i-1], ids[i])
		}
	}
	w.last = ids[n-1]
	w.received += uint64(n)
	if sentAt >= cfg.warmup {
		w.requests++
		w.hist.record(done - sentAt)
		w.lag.record(cfg.layout, ids, r.start.Add(sentAt))
		w.lastReply = done
	}
}

// store returns room for n more IDs at the end of the ID store.
func (w *benchConn) store(n int) []uint64 {
	last := len(w.ids) - 1
	if last < 0 || len(w.ids[last])+n > cap(w.ids[last]) {
		w.ids = append(w.ids, make([]uint64, 0, benchChunkIDs))
		last++
	}
	block := w.ids[last]
	w.ids[last] = block[:len(block)+n]
	return block[len(block) : len(block)+n]
}

func (w *benchConn) violate(before, id uint64) {
	if w.violations == 0 {
		w.violation = [2]uint64{before, id}
	}
	w.violations++
}

// fail ends the connection with err, said in the words of the run.
func (w *benchConn) fail(r *benchRun, err error) {
	r.failed.Add(1)
	replies := w.completed.Load()
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		w.err = fmt.Errorf("conn %d: closed by the server after %d replies", w.id, replies)
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.err = fmt.Errorf("conn %d: no reply within %v after %d replies", w.id, r.cfg.timeout, replies)
	default:
		w.err = fmt.Errorf("conn %d: after %d replies: %w", w.id, replies, err)
	}
}
