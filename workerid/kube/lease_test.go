package kube

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/workerid"
)

// testSource returns a Source of one worker ID over api.
func testSource(t *testing.T, api *fakeAPI, clock *floetest.Clock, owner string) *Source {
	t.Helper()
	cfg := Config{Namespace: "floe", Prefix: "floe-", IDs: 1, TTL: 30 * time.Second, Owner: owner}
	if clock != nil {
		cfg.Clock = clock
	}
	s, err := NewSource(api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// lostReply returns an after hook that loses the reply of the n-th
// request of verb, once: the write applied, its answer did not come.
func lostReply(verb string, n int) func(v, ns, name string) error {
	return failOn(verb, n, errNoReply, false)
}

// TestLease_UnknownResults: a write whose reply is lost is tried again
// with the same resourceVersion; the conflict it then meets is this
// claim's own write, read back and adopted, not a loss.
func TestLease_UnknownResults(t *testing.T) {
	t.Run("claim creating the Lease", func(t *testing.T) {
		api := newFakeAPI()
		api.setHooks(nil, lostReply("create", 1))
		l, err := testSource(t, api, nil, "a").Claim(ctx(t))
		if err != nil {
			t.Fatalf("Claim: %v", err)
		}
		defer l.Release(ctx(t), 0)
		if l.Fence() != 1 || l.Floor() != 0 {
			t.Errorf("fence %d, floor %d; want 1, 0", l.Fence(), l.Floor())
		}
	})
	t.Run("claim updating the Lease", func(t *testing.T) {
		api := newFakeAPI()
		src := testSource(t, api, nil, "a")
		first, err := src.Claim(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Reserve(ctx(t), 700); err != nil {
			t.Fatal(err)
		}
		if err := first.Release(ctx(t), 0); err != nil {
			t.Fatal(err)
		}
		api.setHooks(nil, lostReply("update", 1))
		l, err := src.Claim(ctx(t))
		if err != nil {
			t.Fatalf("Claim: %v", err)
		}
		defer l.Release(ctx(t), 0)
		if l.Fence() != 2 || l.Floor() != 700 {
			t.Errorf("fence %d, floor %d; want 2, 700", l.Fence(), l.Floor())
		}
	})
	t.Run("reserve", func(t *testing.T) {
		api := newFakeAPI()
		l, err := testSource(t, api, nil, "a").Claim(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Release(ctx(t), 0)
		api.setHooks(nil, lostReply("update", 1))
		if err := l.Reserve(ctx(t), 900); err != nil {
			t.Fatalf("Reserve: %v", err)
		}
		w, _ := decodeWorker(api.get("floe", "floe-0"))
		if l.Reserved() != 900 || w.reserved != 900 {
			t.Errorf("Reserved() %d, stored %d; want 900", l.Reserved(), w.reserved)
		}
	})
	t.Run("release", func(t *testing.T) {
		api := newFakeAPI()
		src := testSource(t, api, nil, "a")
		l, err := src.Claim(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Reserve(ctx(t), 900); err != nil {
			t.Fatal(err)
		}
		api.setHooks(nil, lostReply("update", 1))
		if err := l.Release(ctx(t), 600); err != nil {
			t.Fatalf("Release: %v", err)
		}
		api.setHooks(nil, nil)
		next, err := src.Claim(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		defer next.Release(ctx(t), 0)
		if next.Floor() != 600 {
			t.Errorf("next Floor() = %d, want the last tick 600", next.Floor())
		}
	})
}

// TestLease_UnknownUntilDeadline: a Reserve whose result stays unknown
// until the lease's local deadline is a loss; R does not rise.
func TestLease_UnknownUntilDeadline(t *testing.T) {
	api := newFakeAPI()
	clock := floetest.NewClock(time.Unix(1000, 0))
	l, err := testSource(t, api, clock, "a").Claim(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	api.setHooks(func(verb, _, _ string) error {
		if verb == "update" {
			clock.Step(10 * time.Second) // each attempt takes a third of the TTL
			return errNoReply
		}
		return nil
	}, nil)
	err = l.Reserve(ctx(t), 500)
	var lost *workerid.LeaseLostError
	if !errors.As(err, &lost) || !strings.Contains(err.Error(), "Lease floe/floe-0: no renewal within the lease TTL") {
		t.Fatalf("Reserve unknown until the deadline: %v, want a LeaseLostError naming the Lease", err)
	}
	if l.Reserved() != 0 || l.(*lease).Left() > 0 {
		t.Errorf("Reserved() %d, Left() %v; want 0 and none", l.Reserved(), l.(*lease).Left())
	}
}

// TestSource_OwnLossFreesAtOnce: a lease lost here at its local deadline
// frees its worker ID for this Source's next claim at once, while another
// Source still waits the lease duration from its first sight of it.
func TestSource_OwnLossFreesAtOnce(t *testing.T) {
	api := newFakeAPI()
	clock := floetest.NewClock(time.Unix(1000, 0))
	src := testSource(t, api, clock, "a")
	other := testSource(t, api, clock, "b")
	l, err := src.Claim(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Reserve(ctx(t), 300); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Claim(ctx(t)); !errors.Is(err, workerid.ErrExhausted) {
		t.Fatalf("another Source's claim: %v, want ErrExhausted", err)
	}
	clock.Step(31 * time.Second)
	var lost *workerid.LeaseLostError
	if err := l.Reserve(ctx(t), 400); !errors.As(err, &lost) {
		t.Fatalf("Reserve past the deadline: %v, want a loss", err)
	}
	again, err := src.Claim(ctx(t))
	if err != nil {
		t.Fatalf("the same Source's claim after its loss: %v", err)
	}
	if again.Floor() != 300 || again.Fence() != 2 {
		t.Errorf("floor %d, fence %d; want 300, 2", again.Floor(), again.Fence())
	}
}

// TestSource_Exhausted tells how many holders were not seen renewing and
// when the first may be taken.
func TestSource_Exhausted(t *testing.T) {
	api := newFakeAPI()
	clock := floetest.NewClock(time.Unix(1000, 0))
	l, err := testSource(t, api, nil, "a").Claim(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx(t), 0)
	b := testSource(t, api, clock, "b")
	steps := []struct {
		step time.Duration
		want string
	}{
		{0, "floe: every worker ID is held: all 1 worker IDs of Leases floe/floe-*"},
		{12 * time.Second, "; 1 held, not renewed for 12s of the TTL 30s: the first may be taken in 18s"},
	}
	for _, st := range steps {
		clock.Step(st.step)
		_, err := b.Claim(ctx(t))
		if !errors.Is(err, workerid.ErrExhausted) || !strings.Contains(err.Error(), st.want) {
			t.Errorf("Claim: %v, want ErrExhausted saying %q", err, st.want)
		}
	}
}

func TestHeldStatus(t *testing.T) {
	tests := []struct {
		name string
		add  [][2]time.Duration // unchanged, ttl
		want string
	}{
		{"none", nil, ""},
		{"renewing", [][2]time.Duration{{0, 10 * time.Second}}, ""},
		{"one silent", [][2]time.Duration{{4 * time.Second, 10 * time.Second}}, "; 1 held, not renewed for 4s of the TTL 10s: the first may be taken in 6s"},
		{"the soonest of two", [][2]time.Duration{{4 * time.Second, 10 * time.Second}, {3 * time.Second, 5 * time.Second}},
			"; 2 held, not renewed for 3s of the TTL 5s: the first may be taken in 2s"},
	}
	for _, tt := range tests {
		var h heldStatus
		for _, a := range tt.add {
			h.add(a[0], a[1])
		}
		if got := h.String(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestSource_GivenBackKeepsLast: a claim of a worker ID released cleanly
// that fails after its write (here, the read of the catalog's record) and
// gives the ID back issued nothing: the release's last tick stays the
// next claim's floor, not the whole reservation, so a graceful handoff
// still starts right above the last ID issued.
func TestSource_GivenBackKeepsLast(t *testing.T) {
	api := newFakeAPI()
	cat, err := NewCatalog(api, "floe", "prod")
	if err != nil {
		t.Fatal(err)
	}
	seq, err := cat.Create(ctx(t), "orders", "id64 twitter")
	if err != nil {
		t.Fatal(err)
	}
	source := func(owner string) *Source {
		s, err := cat.Source(seq, Config{IDs: 1, TTL: 30 * time.Second, Owner: owner})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, err := source("a").Claim(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve(ctx(t), 300); err != nil {
		t.Fatal(err)
	}
	if err := a.Release(ctx(t), 200); err != nil {
		t.Fatal(err)
	}
	b := source("b")
	// The claim's write, then its read of the record, which fails.
	api.setHooks(failOn("get", 1, apierrors.NewBadRequest("fake: the read failed"), false), nil)
	if _, err := b.Claim(ctx(t)); err == nil {
		t.Fatal("a claim whose read of the record failed succeeded")
	}
	api.setHooks(nil, nil)
	l, err := b.Claim(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx(t), 0)
	if l.Floor() != 200 || l.Fence() != 3 {
		t.Errorf("after a claim given back: floor %d, fence %d; want the release's last tick 200, fence 3", l.Floor(), l.Fence())
	}
}
