//go:build unix

package redis

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/workerid"
	goredis "github.com/redis/go-redis/v9"
)

// A server that hangs with its connections open (SIGSTOP): a Reserve sent
// into the hang returns by the lease's local deadline, the lease ends at
// that deadline, claims retried through the hang fail each within the
// request timeout (the safety check included), and once the server answers
// again a claim succeeds at once: no claim sent into the hang after a
// safety check that timed out runs when the server resumes and holds the
// worker ID (one, so that a single late claim would hold them all).
func TestSource_ServerHung(t *testing.T) {
	const (
		ttl = time.Second
		ids = 1
		// hung is well past the TTL, with a claim retried every retryClaim.
		hung       = 3 * time.Second
		retryClaim = 100 * time.Millisecond
		// slack is how late, on an idle machine, a call may return or a
		// lease end after its bound; stretched by the slowdown measured.
		slack = 300 * time.Millisecond
		// back bounds the first successful claim after the server answers
		// again, on an idle machine; stretched likewise (it is all work).
		back = time.Second
	)
	m := schedtest.Now()
	srv := redistest.Start(t, safeArgs...)
	t.Cleanup(srv.Resume) // before the kill, which cannot stop a stopped group otherwise
	rdb, err := Dial(t.Context(), &goredis.Options{Addr: srv.Addr})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	src, err := NewSource(t.Context(), rdb, Config{IDs: ids, TTL: ttl, Owner: "a"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := src.Claim(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(t.Context(), 100); err != nil {
		t.Fatal(err)
	}

	srv.Pause()
	paused := time.Now()
	// The last renewal was sent before the pause: the local deadline is at
	// most a TTL away.
	deadline := paused.Add(ttl)
	err = l.Reserve(t.Context(), 200)
	if took := time.Since(paused); err == nil || time.Now().After(deadline.Add(m.Scale(slack))) {
		t.Errorf("Reserve into the hang: %v after %v, want an error by the lease's local deadline (%v + %v)", err, took.Round(time.Millisecond), ttl, m.Scale(slack))
	}
	if _, ok := schedtest.Receive(l.Done(), paused, func() time.Duration { return m.Stretch(ttl, slack) }); ok {
		t.Logf("lease ended %v after the pause", time.Since(paused).Round(time.Millisecond))
	} else {
		t.Errorf("lease still running %v after the pause, past its local deadline (at most the TTL %v)", time.Since(paused).Round(time.Millisecond), ttl)
	}
	if _, ok := errors.AsType[*workerid.LeaseLostError](l.Err()); !ok {
		t.Errorf("lease ended with %v, want a *workerid.LeaseLostError", l.Err())
	}

	// Claims, as an application retries them, through the hang.
	var tries int
	for time.Since(paused) < hung {
		start := time.Now()
		_, err := src.Claim(t.Context())
		tries++
		if err == nil {
			t.Fatal("a claim succeeded on a frozen server")
		}
		if took := time.Since(start); took > m.Stretch(src.cfg.Timeout, slack) {
			t.Errorf("a claim into the hang took %v, want at most the request timeout %v", took.Round(time.Millisecond), src.cfg.Timeout)
		}
		time.Sleep(retryClaim)
	}

	srv.Resume()
	resumed := time.Now()
	for {
		l2, err := src.Claim(t.Context())
		if err == nil {
			t.Logf("%d claims into the hang; claimed worker ID %d %v after the server resumed", tries, l2.ID(), time.Since(resumed).Round(time.Millisecond))
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			l2.Release(ctx, 0)
			cancel()
			break
		}
		if bound := m.Stretch(0, back); time.Since(resumed) > bound {
			t.Fatalf("%d claims into the hang; no claim succeeded within %v of the server resuming: %v", tries, bound, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Dial's client ends a request to a server that hangs at the request's
// context deadline, not at the client's read timeout (3 s by default), and
// sends nothing again; a MaxRetries of the caller's stays. opts is left as
// it was.
func TestDial_ServerHung(t *testing.T) {
	const (
		wait = 200 * time.Millisecond
		// slack is how late a request may end on an idle machine;
		// stretched by the slowdown measured.
		slack = 500 * time.Millisecond
	)
	tests := []struct {
		name        string
		maxRetries  int
		wantRetries int // as the client reports it: 0 for none, the -1 of its options
	}{
		{name: "default", maxRetries: 0, wantRetries: 0},
		{name: "the caller's", maxRetries: 2, wantRetries: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := schedtest.Now()
			srv := redistest.Start(t)
			t.Cleanup(srv.Resume) // before the kill, which cannot stop a stopped group otherwise
			opts := &goredis.Options{Addr: srv.Addr, MaxRetries: tt.maxRetries}
			rdb, err := Dial(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { rdb.Close() })
			if got := rdb.Options().MaxRetries; got != tt.wantRetries {
				t.Errorf("MaxRetries = %d, want %d", got, tt.wantRetries)
			}
			if opts.ContextTimeoutEnabled || opts.MaxRetries != tt.maxRetries {
				t.Errorf("Dial changed the caller's options: %+v", opts)
			}
			srv.Pause()
			ctx, cancel := context.WithTimeout(t.Context(), wait)
			defer cancel()
			start := time.Now()
			err = rdb.Ping(ctx).Err()
			took := time.Since(start)
			t.Logf("PING into the hang: %v after %v", err, took.Round(time.Millisecond))
			if err == nil || took > m.Stretch(wait, slack) {
				t.Errorf("PING into the hang: %v after %v, want an error at the context's deadline %v", err, took.Round(time.Millisecond), wait)
			}
		})
	}
}
