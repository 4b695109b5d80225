//go:build unix

package scenario_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/server"
	"github.com/floeid/floe/workerid/etcd"
)

// The scenarios' short timings: a dead node's worker ID frees within
// about ttl, and a reservation reaches about window ahead of the clock.
const (
	ttl    = 2 * time.Second
	window = time.Second
	// requestTimeout is the etcd Source's default: a third of the TTL.
	requestTimeout = ttl / 3
	// healBound is the longest a node or sequencer may take to serve again
	// once etcd answers again (a partition healed, a quorum back): a claim
	// request sent during the fault waits out its requestTimeout, a failed
	// claim backs off 250 ms at most (sequencer's faultRetry), and a claim
	// takes a few round trips, given a second on a loaded machine (-race
	// took up to 741 ms in all).
	healBound = healWaits + time.Second
	// healWaits is healBound's part that is waiting, which load does not
	// lengthen: the timed-out request and the back-off.
	healWaits = requestTimeout + 250*time.Millisecond
)

// etcdNode returns the flags of a floed node of cluster on the etcd
// endpoints eps, named owner, with the scenarios' timings and extra flags
// after them.
func etcdNode(eps []string, cluster, owner string, extra ...string) []string {
	return append([]string{
		"--etcd", strings.Join(eps, ","), "--cluster", cluster, "--owner", owner,
		"--lease-ttl", ttl.String(), "--reserve-window", window.String(),
	}, extra...)
}

// namespace is the worker-ID namespace of a cluster's sequence in etcd,
// for a test that holds IDs itself or reads their reservations.
type namespace struct {
	cli    *clientv3.Client
	prefix string // /floe/v1/<cluster>/seq/<name>/<gen>/
	ids    int
	lease  clientv3.LeaseID // the test's own lease, once it holds IDs
}

// defineDefault records the default sequence of cluster in etcd as floed
// does at its start (the Twitter layout), before any floed runs, and
// returns its namespace.
func defineDefault(t *testing.T, cli *clientv3.Client, cluster string) *namespace {
	t.Helper()
	return defineSequence(t, cli, cluster, server.SequenceConfig{Name: "default", Format: server.Format64, Layout: id64.Twitter})
}

// defineSequence records the sequence sc of cluster in etcd as floed does
// at its start, before any floed runs, and returns its namespace.
func defineSequence(t *testing.T, cli *clientv3.Client, cluster string, sc server.SequenceConfig) *namespace {
	t.Helper()
	spec, err := server.Spec(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq, err := etcd.NewCatalog(cli, "/floe/v1/"+cluster+"/").Create(ctx, sc.Name, spec)
	if err != nil {
		t.Fatalf("defining sequence %q: %v", sc.Name, err)
	}
	return &namespace{
		cli:    cli,
		prefix: fmt.Sprintf("/floe/v1/%s/seq/%s/%d/", cluster, sc.Name, seq.Gen),
		ids:    server.WorkerIDs(sc),
	}
}

func (ns *namespace) ownerKey(id int) string    { return ns.prefix + "workers/" + strconv.Itoa(id) }
func (ns *namespace) reservedKey(id int) string { return ns.prefix + "reserved/" + strconv.Itoa(id) }

// holdAllBut takes every worker ID but free, as a node would (an owner key
// under an etcd lease), under one lease of the test that outlives it: the
// floeds then contend for the free IDs only.
func (ns *namespace) holdAllBut(t *testing.T, free ...int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	g, err := ns.cli.Grant(ctx, 3600)
	if err != nil {
		t.Fatal(err)
	}
	ns.lease = g.ID
	skip := make(map[int]bool)
	for _, id := range free {
		skip[id] = true
	}
	// etcd allows 128 operations per transaction by default.
	var ops []clientv3.Op
	flush := func() {
		if len(ops) == 0 {
			return
		}
		if _, err := ns.cli.Txn(ctx).Then(ops...).Commit(); err != nil {
			t.Fatalf("holding worker IDs: %v", err)
		}
		ops = ops[:0]
	}
	for id := range ns.ids {
		if skip[id] {
			continue
		}
		ops = append(ops, clientv3.OpPut(ns.ownerKey(id), "test-holder", clientv3.WithLease(g.ID)))
		if len(ops) == 100 {
			flush()
		}
	}
	flush()
}

// free gives back a worker ID the test holds.
func (ns *namespace) free(t *testing.T, id int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := ns.cli.Delete(ctx, ns.ownerKey(id))
	if err != nil || resp.Deleted != 1 {
		t.Fatalf("freeing worker ID %d: deleted %v, %v", id, resp, err)
	}
}

// reservation reads the reservation of a worker ID: R, and the last tick
// of a clean release (0 when none).
func (ns *namespace) reservation(t *testing.T, id int) (r, last uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := ns.cli.Get(ctx, ns.reservedKey(id))
	if err != nil {
		t.Fatalf("reading the reservation of worker ID %d: %v", id, err)
	}
	if len(resp.Kvs) == 0 {
		return 0, 0
	}
	var v struct {
		R    uint64 `json:"r"`
		Last uint64 `json:"last"`
	}
	if err := json.Unmarshal(resp.Kvs[0].Value, &v); err != nil {
		t.Fatalf("reservation of worker ID %d: %q: %v", id, resp.Kvs[0].Value, err)
	}
	return v.R, v.Last
}

// reservationOf reads the reservation of a worker ID as owner last wrote
// it: R, and the last tick of a clean release (0 when none), going back
// through the key's earlier versions past any write of another owner.
// Read after a holder's stop or kill, it is what the holder left, even
// when the load delayed the read past a standby's claim.
func (ns *namespace) reservationOf(t *testing.T, id int, owner string) (r, last uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var opts []clientv3.OpOption
	for {
		resp, err := ns.cli.Get(ctx, ns.reservedKey(id), opts...)
		if err != nil {
			t.Fatalf("reading the reservation of worker ID %d: %v", id, err)
		}
		if len(resp.Kvs) == 0 {
			return 0, 0
		}
		kv := resp.Kvs[0]
		var v struct {
			R     uint64 `json:"r"`
			Last  uint64 `json:"last"`
			Owner string `json:"owner"`
		}
		if err := json.Unmarshal(kv.Value, &v); err != nil {
			t.Fatalf("reservation of worker ID %d: %q: %v", id, kv.Value, err)
		}
		if v.Owner == owner {
			return v.R, v.Last
		}
		opts = []clientv3.OpOption{clientv3.WithRev(kv.ModRevision - 1)}
	}
}

// holder returns the owner recorded in a worker ID's owner key, "" when
// nobody holds it.
func (ns *namespace) holder(t *testing.T, id int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := ns.cli.Get(ctx, ns.ownerKey(id))
	if err != nil {
		t.Fatalf("reading the owner of worker ID %d: %v", id, err)
	}
	if len(resp.Kvs) == 0 {
		return ""
	}
	return string(resp.Kvs[0].Value)
}

// seqInfo is a sequence as GET /v1/sequences shows it.
type seqInfo struct {
	Name     string `json:"name"`
	WorkerID int    `json:"worker_id"`
	Reserved uint64 `json:"reserved"`
	LastTick uint64 `json:"last_tick"`
	Ready    bool   `json:"ready"`
	Reason   string `json:"reason"`
}

// sequence returns what p shows of its sequence name.
func sequence(t *testing.T, p *floedproc.Proc, name string) seqInfo {
	t.Helper()
	code, body, err := p.Get("/v1/sequences")
	if err != nil || code != http.StatusOK {
		t.Fatalf("%s: GET /v1/sequences: %d %s %v", p.Name, code, body, err)
	}
	var v struct {
		Sequences []seqInfo `json:"sequences"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("%s: GET /v1/sequences: %q: %v", p.Name, body, err)
	}
	for _, s := range v.Sequences {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("%s: no sequence %q in %s", p.Name, name, body)
	return seqInfo{}
}

// mustReady waits up to d for p to be ready, failing the test if not.
func mustReady(t *testing.T, p *floedproc.Proc, d time.Duration) {
	t.Helper()
	if !p.WaitReady(d, true) {
		_, body, _ := p.Get("/readyz")
		t.Fatalf("%s not ready after %v: %s", p.Name, d, body)
	}
}

// tickTime is the wall time a Twitter-layout tick starts at.
func tickTime(tick uint64) time.Time {
	return time.UnixMilli(int64(tick) + floedproc.TwitterEpochMs)
}

// claimedFloor returns the floor of p's last claim of a worker ID for its
// default sequence, from its log: the tick its IDs must stay above.
func claimedFloor(t *testing.T, p *floedproc.Proc) uint64 {
	t.Helper()
	return claimedFloorOf(t, p, "default")
}

// claimedFloorOf is claimedFloor for p's sequence seq.
func claimedFloorOf(t *testing.T, p *floedproc.Proc, seq string) uint64 {
	t.Helper()
	var floor uint64
	found := false
	for line := range strings.Lines(p.Stderr()) {
		if !strings.Contains(line, `msg="worker ID claimed"`) || !strings.Contains(line, "seq="+seq+" ") {
			continue
		}
		for field := range strings.FieldsSeq(line) {
			if v, ok := strings.CutPrefix(field, "floor="); ok {
				n, err := strconv.ParseUint(v, 10, 64)
				if err != nil {
					t.Fatalf("%s: floor in %q: %v", p.Name, line, err)
				}
				floor, found = n, true
			}
		}
	}
	if !found {
		t.Fatalf("%s logged no claim of a worker ID for %s:\n%s", p.Name, seq, p.Stderr())
	}
	return floor
}

// standbyRetry is the longest a standby waits between claims of a worker
// ID held by another (its back-off), and so after one frees: the part of
// a handoff's bound that is waiting.
const standbyRetry = 250 * time.Millisecond

// faultRetry is the longest a node or sequencer waits before it claims
// again after a claim failed on the coordinator (sequencer's faultRetry):
// the part of a return to service's bound that is waiting.
const faultRetry = 250 * time.Millisecond
