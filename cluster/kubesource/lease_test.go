package kubesource_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	coordv1 "k8s.io/api/coordination/v1"

	"github.com/floeid/floe/cluster/kubetest"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/kube"
	"github.com/floeid/floe/workerid/workeridtest"
)

// TestSource_TakeoverAfterLeaseDuration: a claimer takes the worker ID of
// a holder that stopped renewing only once its own clock saw the Lease
// unchanged for the lease duration, whatever the holder's clock says; the
// old holder's next write then ends its lease, naming the Lease and the
// new holder. The holder's TTL of 60 s keeps it from renewing (every
// 20 s) while the claimer's fake clock is stepped.
func TestSource_TakeoverAfterLeaseDuration(t *testing.T) {
	api := kubetest.Start(t)
	ns, rc := api.Namespace(t)
	cfg := kube.Config{Namespace: ns, Prefix: "floe-takeover-", IDs: 1, TTL: time.Minute}
	acfg := cfg
	acfg.Owner = "host-a"
	a, err := newSource(t, client(t, rc), acfg).Claim(ctxFor(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Reserve(ctxFor(t), 5000); err != nil {
		t.Fatal(err)
	}
	clock := floetest.NewClock(time.Unix(1_000_000, 0))
	bcfg := cfg
	bcfg.Owner, bcfg.Clock = "host-b", clock
	b := newSource(t, client(t, rc), bcfg)
	steps := []struct {
		step time.Duration
		want string // in the ErrExhausted error; "" for a claim that succeeds
	}{
		{0, "all 1 worker IDs"},
		{30 * time.Second, "1 held, not renewed for 30s of the TTL 1m0s: the first may be taken in 30s"},
		{29 * time.Second, "not renewed for 59s of the TTL 1m0s"},
		{time.Second, ""},
	}
	var l workerid.Lease
	for _, st := range steps {
		clock.Step(st.step)
		l, err = b.Claim(ctxFor(t))
		if st.want == "" {
			if err != nil {
				t.Fatalf("claim after %v unchanged: %v", time.Minute, err)
			}
			break
		}
		if !errors.Is(err, workerid.ErrExhausted) || !strings.Contains(err.Error(), st.want) {
			t.Fatalf("claim: %v, want ErrExhausted saying %q", err, st.want)
		}
	}
	if l.Floor() != 5000 || l.Fence() != a.Fence()+1 {
		t.Fatalf("takeover: floor %d, fence %d; want 5000, %d", l.Floor(), l.Fence(), a.Fence()+1)
	}
	workeridtest.WantLost(t, a, opTimeout)
	if msg := a.Err().Error(); !strings.Contains(msg, "Lease "+ns+"/floe-takeover-0 is held by host-b/") {
		t.Errorf("the old holder's loss: %q, want it to name the Lease and the new holder", msg)
	}
}

// TestLease_HandEdited: an operator's edit of a held Lease ends the lease
// at its next write, with a message naming the Lease and the cause, and
// the reservation it reads is never taken as a floor.
func TestLease_HandEdited(t *testing.T) {
	api := kubetest.Start(t)
	ns, rc := api.Namespace(t)
	admin := client(t, api.Admin())
	tests := []struct {
		name   string
		change func(*coordv1.Lease)
		want   string // in the LeaseLostError, after "Lease <ns>/<name>"
	}{
		{"a foreign holder", func(l *coordv1.Lease) { l.Spec.HolderIdentity = ptr("intruder/1") }, " is held by intruder/1 (fence 1)"},
		{"the reservation moved backwards", func(l *coordv1.Lease) { l.Annotations["floe.dev/reserved"] = "10" }, " reservation moved backwards from 1000 to 10"},
		{"a reservation that does not parse", func(l *coordv1.Lease) { l.Annotations["floe.dev/reserved"] = "1e6" }, ` annotation floe.dev/reserved: "1e6"`},
		{"retired by hand", func(l *coordv1.Lease) { l.Annotations["floe.dev/state"] = "retired" }, " was retired"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := fmt.Sprintf("floe-edit-%d-", i)
			src := newSource(t, client(t, rc), kube.Config{Namespace: ns, Prefix: prefix, IDs: 1, TTL: 10 * time.Second, Owner: "a"})
			l, err := src.Claim(ctxFor(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Reserve(ctxFor(t), 1000); err != nil {
				t.Fatal(err)
			}
			edit(t, admin, ns, prefix+"0", tt.change)
			workeridtest.WantLost(t, l, opTimeout)
			if msg, want := l.Err().Error(), "Lease "+ns+"/"+prefix+"0"+tt.want; !strings.Contains(msg, want) {
				t.Errorf("loss: %q, want it to say %q", msg, want)
			}
			if l.Reserved() != 1000 {
				t.Errorf("Reserved() = %d after the loss, want 1000", l.Reserved())
			}
		})
	}
}
