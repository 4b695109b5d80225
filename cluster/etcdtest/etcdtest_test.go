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
