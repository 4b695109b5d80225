package etcdtest_test

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

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

// An isolated member, leader or not, takes no write and renews no lease
// for its clients while the others, a quorum, elect a leader and take
// writes; rejoined, it has them.
func TestCluster_Isolate(t *testing.T) {
	for _, tt := range []struct {
		name   string
		leader bool
	}{{"leader", true}, {"follower", false}} {
		t.Run(tt.name, func(t *testing.T) {
			c := etcdtest.StartPeerProxies(t, 3)
			x := c.WaitLeader(t)
			if !tt.leader {
				x = c.Members()[(memberIndex(c, x)+1)%3]
			}
			var others []string
			for _, m := range c.Members() {
				if m != x {
					others = append(others, m.ClientAddr)
				}
			}
			cliX, cliO := c.ClientOf(t, []string{x.ClientAddr}), c.ClientOf(t, others)
			lease, err := cliX.Grant(etcdtest.Ctx(t, 10*time.Second), 60)
			if err != nil {
				t.Fatal(err)
			}
			c.Isolate(t, x, true)
			// A write proposed to an old leader is lost: the others take
			// one once they have elected a leader, if they had to.
			deadline := time.Now().Add(10 * time.Second)
			for l := c.Leader(); l == nil || l == x; l = c.Leader() {
				if time.Now().After(deadline) {
					t.Fatalf("no leader but %s 10 s after it was isolated", x.Name)
				}
				time.Sleep(10 * time.Millisecond)
			}
			put, err := cliO.Put(etcdtest.Ctx(t, 10*time.Second), "k", "v")
			if err != nil {
				t.Fatalf("put on the others with %s isolated: %v", x.Name, err)
			}
			// Past an election timeout, the isolated member knows no
			// leader to forward a renewal to.
			time.Sleep(3 * x.Timers().Election)
			if _, err := cliX.KeepAliveOnce(etcdtest.Ctx(t, 2*time.Second), lease.ID); err == nil {
				t.Errorf("lease renewed through %s, isolated", x.Name)
			}
			if _, err := cliX.Put(etcdtest.Ctx(t, 2*time.Second), "k", "x"); err == nil {
				t.Errorf("put through %s, isolated, succeeded", x.Name)
			}
			c.Isolate(t, x, false)
			// The put through x timed out: its result is unknown, and the
			// proposal x held may still commit once x rejoins, above "v".
			// So x is read at the revision of the others' put.
			resp, err := cliX.Get(etcdtest.Ctx(t, 10*time.Second), "k", clientv3.WithRev(put.Header.Revision))
			if err != nil {
				t.Fatalf("get through %s, rejoined: %v", x.Name, err)
			}
			if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
				t.Errorf("get through %s, rejoined, at revision %d: %v, want v", x.Name, put.Header.Revision, resp.Kvs)
			}
		})
	}
}

// memberIndex returns the index of m in c's members.
func memberIndex(c *etcdtest.Cluster, m *etcdtest.Member) int {
	for i, o := range c.Members() {
		if o == m {
			return i
		}
	}
	return -1
}
