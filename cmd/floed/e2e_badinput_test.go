//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// resources are a daemon's open descriptors and goroutines.
type resources struct{ fds, goroutines int }

// resources reads process_open_fds (or counts /proc/<pid>/fd) and
// go_goroutines.
func (f *floed) resources() resources {
	f.t.Helper()
	m := f.metrics()
	r := resources{fds: int(m["process_open_fds"]), goroutines: int(m["go_goroutines"])}
	if _, ok := m["process_open_fds"]; !ok {
		entries, err := os.ReadDir("/proc/" + strconv.Itoa(f.Pid()) + "/fd")
		if err != nil {
			f.t.Fatalf("no process_open_fds and no /proc: %v", err)
		}
		r.fds = len(entries)
	}
	return r
}

// Margins over the baseline once everything is closed: a scrape's own
// connection may still be winding down.
const (
	fdMargin        = 2
	goroutineMargin = 2
)

func TestE2E_BadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 connections; skipped with -short")
	}
	const token = "the-right-token"
	// The two daemons' IDs go into one log, so they must not share a
	// worker ID: two daemons with the same one issue the same IDs when
	// they serve in the same millisecond.
	// authTimeout is the daemons' --auth-timeout. A client here sends its
	// auth frame right after the dial, but on a loaded machine the daemon
	// may first read it later than 300 ms after the accept (the old value)
	// and close the connection: 1 s leaves it that time. The half-frame
	// case checks only that the daemon waits it out, which no load can
	// make it fail.
	const authTimeout = time.Second
	withToken := startFloedEnv(t, []string{"FLOE_TOKEN=" + token}, "-w", "1", "--auth-timeout", authTimeout.String(), "--max-conns", "4096")
	tokenless := startFloed(t, "-w", "2", "--auth-timeout", authTimeout.String(), "--max-conns", "4096")
	base := map[*floed]resources{withToken: withToken.resources(), tokenless: tokenless.resources()}
	var ids idLog

	t.Run("wrong token", func(t *testing.T) {
		for _, bad := range []string{"the-wrong-token", "", "the-right-token-and-more", "the-right-toke"} {
			if err := sendClosed(withToken.Bin, "", append(authFrame(bad), 1, 2, 3), 10*time.Second); err != nil {
				t.Errorf("token %q: %v", bad, err)
			}
		}
		// No auth frame at all.
		if err := sendClosed(withToken.Bin, "", requests(5), 10*time.Second); err != nil {
			t.Errorf("no auth frame: %v", err)
		}
	})

	t.Run("auth frame without a token configured", func(t *testing.T) {
		c, err := dialNoeq(tokenless.Bin, "anything at all")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		got, err := fetch(c, 3, 255)
		if err != nil {
			t.Fatalf("auth frame on a tokenless daemon: %v", err)
		}
		checkIncreasing(t, "one connection", got)
		ids.add(got)
	})

	t.Run("request byte 0", func(t *testing.T) {
		for _, d := range []*floed{withToken, tokenless} {
			// On the tokenless daemon a first byte 0 would begin an
			// auth frame: send one (ignored) before the request.
			tok := "ignored"
			if d == withToken {
				tok = token
			}
			if err := sendClosed(d.Bin, tok, requests(0), 10*time.Second); err != nil {
				t.Errorf("request 0 (token %q): %v", tok, err)
			}
		}
	})

	t.Run("replies before a request byte 0", func(t *testing.T) {
		// The daemon closes at the 0, after answering the two requests
		// it read before it: the replies, then the end of the stream,
		// though the 9 after the 0 is never read as a request.
		c, err := dialNoeq(withToken.Bin, token)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.Write([]byte{3, 4, 0, 9})
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := io.ReadAll(c)
		if err != nil {
			t.Fatalf("after %d bytes: %v, want the end of the stream", len(got), err)
		}
		if len(got) != 8*7 {
			t.Errorf("%d bytes before the close; want the replies to the 2 requests before the 0 (56 bytes)", len(got))
		}
		ids.add(decodeIDs(got))
	})

	t.Run("half an auth frame", func(t *testing.T) {
		for _, d := range []*floed{withToken, tokenless} {
			// start is before the dial, so before the daemon's accept,
			// from which its timeout runs: the close comes at least
			// authTimeout after it, however late either side ran.
			start := time.Now()
			c, err := dialNoeq(d.Bin, "")
			if err != nil {
				t.Fatal(err)
			}
			c.Write([]byte{0x00, 10, 'h', 'a', 'l', 'f'})
			if err := closedWithout(c, 10*time.Second); err != nil {
				t.Errorf("half an auth frame: %v", err)
			}
			// A lower bound only: the daemon cannot close before its
			// --auth-timeout.
			if d := time.Since(start); d < authTimeout {
				t.Errorf("closed after %v, before the auth timeout of %v", d, authTimeout)
			}
			c.Close()
		}
	})

	t.Run("random bytes", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(42, 4))
		for i := range 40 {
			d := tokenless
			if i%2 == 1 {
				d = withToken
			}
			in := make([]byte, 1+rng.IntN(300))
			for j := range in {
				in[j] = byte(rng.Uint32())
			}
			if i%4 == 0 {
				in[0] = 0x00 // begin with an auth frame, for half of the tokenless cases
			}
			// What the daemon owes: nothing with a token (the frame is
			// wrong or missing); without one, the auth frame is skipped,
			// then requests up to the first 0, which closes.
			var counts []int
			closes := true
			if d == tokenless {
				counts, closes = tokenlessRequests(in)
			}
			owed := 0
			for _, n := range counts {
				owed += n
			}
			c, err := dialNoeq(d.Bin, "")
			if err != nil {
				t.Fatal(err)
			}
			c.Write(in)
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			var got []byte
			if closes {
				// After replies the stream ends cleanly; a refusal
				// before any may end with a reset.
				got, err = io.ReadAll(c)
				if err != nil && (owed > 0 || !errors.Is(err, syscall.ECONNRESET)) {
					t.Errorf("conn %d: not closed after %d IDs owed: %v", i, owed, err)
				}
			} else {
				got = make([]byte, 8*owed)
				if _, err := io.ReadFull(c, got); err != nil {
					t.Errorf("conn %d: reading %d IDs: %v", i, owed, err)
				}
				// Served, and still open.
				c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				var ne net.Error
				if _, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
					t.Errorf("conn %d: after the replies: %v, want the connection held open", i, err)
				}
			}
			c.Close()
			// Replies end at a request boundary, and none is missing.
			sum, k := 0, 0
			for k < len(counts) && 8*(sum+counts[k]) <= len(got) {
				sum += counts[k]
				k++
			}
			if 8*sum != len(got) {
				t.Errorf("conn %d: %d bytes of replies end inside the reply to request %d", i, len(got), k)
			}
			if 8*owed != len(got) {
				t.Errorf("conn %d: got %d IDs, want %d for the %d requests before the close", i, len(got)/8, owed, len(counts))
			}
			ids.add(decodeIDs(got))
		}
	})

	t.Run("10000 connections", func(t *testing.T) {
		const conns, maxConns = 10000, 4096
		raiseFileLimit(t, conns+500)
		if !waitFor(10*time.Second, func() bool { return tokenless.metrics()["floe_connections"] == 0 }) {
			t.Fatalf("floe_connections not 0 before the test")
		}
		held := make([]net.Conn, 0, conns)
		var (
			mu      sync.Mutex
			dialErr error
			wg      sync.WaitGroup
		)
		for range 8 {
			wg.Go(func() {
				for range conns / 8 {
					c, err := net.DialTimeout("tcp", tokenless.Bin, 10*time.Second)
					mu.Lock()
					if err != nil {
						dialErr = err
					} else {
						held = append(held, c)
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		if dialErr != nil {
			t.Logf("some dials failed: %v", dialErr)
		}

		// Sort the connections into closed by the daemon and held,
		// until they add up to the limit.
		var closed, alive []net.Conn
		pending := held
		ok := waitFor(20*time.Second, func() bool {
			var still, shut []net.Conn
			var mu sync.Mutex
			var wg sync.WaitGroup
			for w := range 16 {
				wg.Go(func() {
					one := make([]byte, 1)
					for i := w; i < len(pending); i += 16 {
						c := pending[i]
						c.SetReadDeadline(time.Now().Add(time.Millisecond))
						_, err := c.Read(one)
						var ne net.Error
						mu.Lock()
						if errors.As(err, &ne) && ne.Timeout() {
							still = append(still, c)
						} else {
							shut = append(shut, c)
						}
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			pending, closed = still, append(closed, shut...)
			return len(pending) <= maxConns
		})
		alive = pending
		t.Logf("%d connections opened: %d closed at once by the daemon, %d held", len(held), len(closed), len(alive))
		if !ok || len(alive) != min(maxConns, len(held)) {
			t.Errorf("%d connections held, want %d", len(alive), min(maxConns, len(held)))
		}

		// The daemon still answers HTTP and counts the rejects.
		m := tokenless.metrics()
		if m["floe_connections"] != maxConns {
			t.Errorf("floe_connections = %v, want %d", m["floe_connections"], maxConns)
		}
		if got := m[`floe_connections_closed_total{reason="limit"}`]; got < float64(len(closed)) {
			t.Errorf(`floe_connections_closed_total{reason="limit"} = %v, want at least %d`, got, len(closed))
		}
		if code, _ := tokenless.mustGet("/healthz"); code != http.StatusOK {
			t.Errorf("/healthz with %d connections held: %d", len(alive), code)
		}

		// Held connections are served.
		for _, c := range alive[:3] {
			c.SetDeadline(time.Now().Add(30 * time.Second))
			got, err := fetch(c, 2)
			if err != nil {
				t.Errorf("a held connection: %v", err)
				continue
			}
			ids.add(got)
		}
		for _, c := range held {
			c.Close()
		}
		held = nil

		// Once they are closed, a new connection is served.
		if !waitFor(20*time.Second, func() bool { return tokenless.metrics()["floe_connections"] == 0 }) {
			t.Errorf("floe_connections = %v after closing every connection", tokenless.metrics()["floe_connections"])
		}
		c, err := dialNoeq(tokenless.Bin, "")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		got, err := fetch(c, 255)
		if err != nil {
			t.Fatalf("a new connection after the flood: %v", err)
		}
		ids.add(got)
	})

	// Neither daemon crashed, and with every connection closed both are
	// back to their baseline of descriptors and goroutines.
	for d, name := range map[*floed]string{withToken: "with token", tokenless: "tokenless"} {
		if d.exited() {
			t.Fatalf("%s daemon exited: %v", name, d.err)
		}
		var now resources
		ok := waitFor(20*time.Second, func() bool {
			now = d.resources()
			return now.fds <= base[d].fds+fdMargin && now.goroutines <= base[d].goroutines+goroutineMargin
		})
		t.Logf("%s daemon: fds %d before, %d after; goroutines %d before, %d after", name, base[d].fds, now.fds, base[d].goroutines, now.goroutines)
		if !ok {
			t.Errorf("%s daemon leaks: fds %d -> %d, goroutines %d -> %d", name, base[d].fds, now.fds, base[d].goroutines, now.goroutines)
		}
	}
	for d, want := range map[*floed][]string{
		withToken: {"unauthorized", "bad_request", "auth_timeout"},
		tokenless: {"bad_request", "auth_timeout", "limit"},
	} {
		m := d.metrics()
		for _, reason := range want {
			if m[`floe_connections_closed_total{reason="`+reason+`"}`] == 0 {
				t.Errorf("floe_connections_closed_total{reason=%q} is 0", reason)
			}
		}
	}
	all := ids.all()
	checkUnique(t, all)
	t.Logf("%d IDs checked", len(all))
}

// tokenlessRequests returns the requests a daemon without a token reads
// from in, and whether it closes the connection after them: an auth frame
// first is read and ignored (one cut short closes at the auth timeout),
// then each byte is a request until a 0, which closes.
func tokenlessRequests(in []byte) (counts []int, closes bool) {
	if in[0] == 0x00 {
		if len(in) < 2 || len(in) < 2+int(in[1]) {
			return nil, true
		}
		in = in[2+int(in[1]):]
	}
	if i := bytes.IndexByte(in, 0); i >= 0 {
		in, closes = in[:i], true
	}
	for _, b := range in {
		counts = append(counts, int(b))
	}
	return counts, closes
}

// raiseFileLimit raises the soft limit on open files to at least need, or
// skips the test when the hard limit is lower.
func raiseFileLimit(t *testing.T, need uint64) {
	t.Helper()
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Skipf("getrlimit: %v", err)
	}
	if lim.Max < need {
		t.Skipf("the hard limit on open files is %d, below the %d this test needs", lim.Max, need)
	}
	if lim.Cur < need {
		lim.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Skipf("setrlimit: %v", err)
		}
	}
}
