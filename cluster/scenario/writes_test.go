//go:build unix

package scenario_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
)

// Two nodes serve steadily on a three-member etcd: each writes to etcd once
// per 7/16 of a reservation window (it keeps between half a window and a
// window reserved; its keepalives write nothing), and every write etcd saw
// in the meantime was one of their reservations.
func TestScenario_OneWritePerHalfWindow(t *testing.T) {
	const span = 8 * window
	ec := etcdtest.Start(t, 3)
	cli := ec.Client(t)
	defineDefault(t, cli, "writes")

	led := floedproc.NewLedger()
	var procs []*floedproc.Proc
	for _, who := range []string{"a", "b"} {
		p := floedproc.Start(t, bin, who, etcdNode(ec.Endpoints(), "writes", who)...)
		mustReady(t, p, 5*time.Second)
		startFeed(t, led, p, who, feedOpts{})
		procs = append(procs, p)
	}
	// Past the first claims and their first keeper writes.
	time.Sleep(window)

	// Each count covers the time from one read of the counter to the
	// next: at most from the first's request to the second's answer, at
	// least from the first's answer to the second's request, however long
	// the load made either read.
	before := make([]float64, len(procs))
	asked, answered := make([]time.Time, len(procs)), make([]time.Time, len(procs))
	for i, p := range procs {
		asked[i] = time.Now()
		before[i] = reservationWrites(t, p)
		answered[i] = time.Now()
	}
	rev0 := revision(t, cli)
	time.Sleep(span)
	rev1 := revision(t, cli)
	total := 0.0
	for i, p := range procs {
		sent := time.Now()
		n := reservationWrites(t, p) - before[i]
		longest, shortest := time.Since(asked[i]), sent.Sub(answered[i])
		total += n
		t.Logf("%s: %.0f reservation writes in %v (%v to %v) with a %v window", p.Name, n, span, shortest.Round(time.Millisecond), longest.Round(time.Millisecond), window)
		per := func(d time.Duration) float64 { return d.Seconds() / window.Seconds() * 16 / 7 }
		if limit := per(longest) + 1; n > limit {
			t.Errorf("%s wrote its reservation %.0f times in %v, want at most one per 7/16 of the %v window (%.0f)", p.Name, n, longest.Round(time.Millisecond), window, limit)
		}
		// Serving moves the clock past the reservation: writes must go on.
		if least := per(shortest) - 3; n < least {
			t.Errorf("%s wrote its reservation %.0f times in %v while serving, want at least %.0f", p.Name, n, shortest.Round(time.Millisecond), least)
		}
		if code, body, err := p.Get("/readyz"); err != nil || code != http.StatusOK {
			t.Errorf("%s not ready at the end: %d %s %v", p.Name, code, body, err)
		}
	}
	// The reads of the counters and of the revision are not atomic: a
	// write may land between them.
	if got := float64(rev1 - rev0); got < total-float64(len(procs)) || got > total+float64(len(procs)) {
		t.Errorf("etcd's revision rose by %.0f in %v, want about the nodes' %.0f reservation writes: something else writes", got, span, total)
	}
	t.Logf("etcd revision +%d in %v", rev1-rev0, span)
	checkLedger(t, led)
}

// revision returns the etcd cluster's current revision.
func revision(t *testing.T, cli *clientv3.Client) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, "/floe/none")
	if err != nil {
		t.Fatalf("reading etcd's revision: %v", err)
	}
	return resp.Header.Revision
}

// reservationWrites returns p's floe_reservation_writes_total of the
// default sequence's successful writes.
func reservationWrites(t *testing.T, p *floedproc.Proc) float64 {
	t.Helper()
	code, body, err := p.Get("/metrics")
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s: GET /metrics: %d %v", p.Name, code, err)
	}
	for line := range strings.Lines(body) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "floe_reservation_writes_total{") ||
			!strings.Contains(line, `result="ok"`) || !strings.Contains(line, `seq="default"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", p.Name, line, err)
		}
		return v
	}
	t.Fatalf("%s: no floe_reservation_writes_total{seq=\"default\",result=\"ok\"} in its metrics", p.Name)
	return 0
}
