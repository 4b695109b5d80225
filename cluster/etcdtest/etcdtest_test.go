package etcdtest_test

import (
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
)

func TestCluster_PutGetAcrossLeaderLoss(t *testing.T) {
	c := etcdtest.Start(t, 3)
	cli := c.Client(t)
	ctx := etcdtest.Ctx(t, 20*time.Second)
	if _, err := cli.Put(ctx, "k", "v1"); err != nil {
		t.Fatal(err)
	}
	leader := c.WaitLeader(t)
	leader.Stop()
	if _, err := cli.Put(ctx, "k", "v2"); err != nil {
		t.Fatalf("put after the leader stopped: %v", err)
	}
	leader.Restart(t)
	resp, err := cli.Get(ctx, "k")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(resp.Kvs[0].Value), "v2"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestStartTimers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		start func(t *testing.T) *etcdtest.Cluster
		want  etcdtest.Timers
	}{
		{"start runs fast timers", func(t *testing.T) *etcdtest.Cluster { return etcdtest.Start(t, 1) },
			etcdtest.Timers{Heartbeat: 10 * time.Millisecond, Election: 100 * time.Millisecond}},
		{"production timers", func(t *testing.T) *etcdtest.Cluster { return etcdtest.StartTimers(t, 1, etcdtest.ProductionTimers) },
			etcdtest.Timers{Heartbeat: 100 * time.Millisecond, Election: time.Second}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.start(t)
			if got := c.Members()[0].Timers(); got != tc.want {
				t.Errorf("Timers() = %+v, want %+v", got, tc.want)
			}
			if _, err := c.Client(t).Put(etcdtest.Ctx(t, 10*time.Second), "k", "v"); err != nil {
				t.Errorf("put: %v", err)
			}
		})
	}
}

// A leader whose peer proxy is frozen is not heard by the others any more:
// they elect another, and the cluster takes writes through them. Thawed,
// it rejoins, and the cluster has one leader.
func TestStartPeerProxies_FrozenLeader(t *testing.T) {
	c := etcdtest.StartPeerProxies(t, 3)
	old := c.WaitLeader(t)
	var others []string
	for _, m := range c.Members() {
		if m.PeerProxy == nil {
			t.Fatalf("member %s has no peer proxy", m.Name)
		}
		if m != old {
			others = append(others, m.ClientAddr)
		}
	}
	cli := c.ClientOf(t, others)
	old.PeerProxy.Freeze(true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l := c.Leader(); l != nil && l != old {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no leader but %s 10 s after its peer proxy froze", old.Name)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := cli.Put(etcdtest.Ctx(t, 10*time.Second), "k", "v"); err != nil {
		t.Fatalf("put with the old leader frozen: %v", err)
	}
	old.PeerProxy.Freeze(false)
	resp, err := c.ClientOf(t, []string{old.ClientAddr}).Get(etcdtest.Ctx(t, 10*time.Second), "k")
	if err != nil {
		t.Fatalf("get from %s once thawed: %v", old.Name, err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("get from %s once thawed: %v, want v", old.Name, resp.Kvs)
	}
}
