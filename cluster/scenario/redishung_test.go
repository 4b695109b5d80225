//go:build unix

package scenario_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/schedtest"
)

// The bounds of a Redis server that stops answering without closing its
// connections, frozen (SIGSTOP) or behind a black hole, for hungFor (well
// past the TTL). A node issues nothing after its lease's local deadline,
// at most TTL after the fault began (the last renewal was sent before it);
// it serves again within hungBack of the server answering, and no ID
// repeats.
// hungFor, how long the fault lasts, is the etcd member scenarios' own.
const (
	// hungLate is how long after its deadline a reply issued before it may
	// still arrive at the client on a loaded machine.
	hungLate = 250 * time.Millisecond
	// hungBack bounds the return to service once the server answers: a
	// claim, after the claim back-off. Generous for a loaded machine
	// (measured: 6–27 ms); the log shows the figure.
	hungBack = time.Second
)

// A Redis server that hangs for hungFor, frozen or black-holed: each node
// stops issuing by its lease's local deadline, and serves again within
// hungBack of the server answering, with no duplicate.
func TestScenario_RedisHung(t *testing.T) {
	tests := []struct {
		name  string
		start func(t *testing.T, srv *redistest.Server) (addr string, hang, answer func())
	}{
		{name: "frozen", start: func(t *testing.T, srv *redistest.Server) (string, func(), func()) {
			t.Cleanup(srv.Resume) // before the kill, which cannot stop a stopped group otherwise
			return srv.Addr, srv.Pause, srv.Resume
		}},
		{name: "black hole", start: func(t *testing.T, srv *redistest.Server) (string, func(), func()) {
			px, err := faultproxy.Listen(srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { px.Close() })
			return px.Addr(), func() { px.Blackhole(true) }, px.Heal
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := redistest.Start(t, safeRedis...)
			addr, hang, answer := tt.start(t, srv)
			led := floedproc.NewLedger()
			names := []string{"a", "b"}
			procs := make(map[string]*floedproc.Proc)
			feeds := make(map[string]*feed)
			for _, name := range names {
				p := floedproc.Start(t, bin, name, redisNode(addr, "hung", name)...)
				mustReady(t, p, 5*time.Second)
				procs[name] = p
				feeds[name] = startFeed(t, led, p, name, feedOpts{})
			}
			time.Sleep(time.Second)

			hang()
			hung := time.Now()
			time.Sleep(hungFor)
			answer()
			answered := time.Now()
			back := boundFrom(schedtest.Now(), hungBack, faultRetry)
			for _, name := range names {
				// By when the last request answered before the heal was
				// sent: load may delay a reply, not when it was asked for.
				if sent, ok := feeds[name].lastSent(name, hung, answered); !ok {
					t.Logf("%s issued nothing after Redis hung", name)
				} else {
					last := sent.Sub(hung)
					t.Logf("%s issued its last IDs for a request sent %v after Redis hung", name, last.Round(time.Millisecond))
					if last > ttl+hungLate {
						t.Errorf("%s issued IDs for a request sent %v after Redis hung, past its lease's local deadline (at most the TTL %v)", name, last.Round(time.Millisecond), ttl)
					}
				}
			}
			for _, name := range names {
				b, ok := feeds[name].waitServed(name, answered, 15*time.Second)
				if !ok {
					t.Fatalf("%s issued nothing within 15 s of Redis answering again; /readyz %v", name, procs[name].Ready())
				}
				d := b.at.Sub(answered)
				gap, _ := maxGap(feeds[name].received(name, hung.Add(-time.Second), b.at.Add(time.Nanosecond)))
				t.Logf("%s served again %v after Redis answered again; its longest pause between replies %v", name, d.Round(time.Millisecond), gap.Round(time.Millisecond))
				if ok, want := back.check(d); !ok {
					t.Errorf("%s served again %v after Redis answered again, want within %s", name, d.Round(time.Millisecond), want)
				}
			}
			time.Sleep(300 * time.Millisecond)
			for _, f := range feeds {
				f.halt()
			}
			checkLedger(t, led)
		})
	}
}
