//go:build unix

package scenario_test

import (
	"fmt"
	"testing"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/sequencer"
)

// The TestSeq_*ID128 scenarios run the faults of the in-process scenarios
// on id128 sequences: version-7 UUIDs. A UUIDv7 of floe is unique by its
// millisecond, counter and worker ID, never by its random bits, so the
// ledger records each ID as that triple (key128): a duplicate triple is a
// duplicate, whatever the random bits say.

// seq128Scenarios are the faults the id128 sequences go through: a lease
// lost to a partition, a holder whose replies come past the TTL (it cannot
// renew, as a paused process), a graceful handoff, and a holder killed
// (crash: no release) while another waits for its worker ID.
var seq128Scenarios = []string{
	"lease lost to a partition",
	"replies delayed past the TTL",
	"graceful handoff",
	"two processes contending for one worker ID",
}

// TestSeq_EtcdID128 runs seq128Scenarios on id128 sequences on one
// 3-member etcd.
func TestSeq_EtcdID128(t *testing.T) {
	ec := etcdtest.Start(t, 3)
	def := sequencer.Definition{Format: sequencer.Format128}
	runSeq128Scenarios(t, func(t *testing.T, cluster string) coordinator { return newEtcdCoordOf(t, ec, cluster, def) })
}

// TestSeq_RedisID128 runs seq128Scenarios on id128 sequences on one Redis
// server with AOF on.
func TestSeq_RedisID128(t *testing.T) {
	srv := redistest.Start(t, safeRedis...)
	def := sequencer.Definition{Format: sequencer.Format128}
	runSeq128Scenarios(t, func(t *testing.T, cluster string) coordinator { return newRedisCoordOf(t, srv, cluster, def) })
}

func runSeq128Scenarios(t *testing.T, start func(t *testing.T, cluster string) coordinator) {
	for i, name := range seq128Scenarios {
		found := false
		for _, sc := range seqScenarios {
			if sc.name == name {
				found = true
				t.Run(name, func(t *testing.T) { sc.run(t, start(t, fmt.Sprintf("seq128-%d", i))) })
			}
		}
		if !found {
			t.Errorf("no in-process scenario %q", name)
		}
	}
}

// key128 returns the ledger's key of an id128 ID: its millisecond,
// worker ID and counter in the places of a Twitter-layout ID's tick, node
// and sequence, so that floedproc.Tick reads its Unix millisecond (the
// sequencer's tick of id128, until 2039, when it outgrows 41 bits) and
// floedproc.Node its worker ID. The scenarios lease worker IDs below
// 1,024 and issue far fewer than 4,096 IDs a millisecond; a key that
// cannot hold its ID is an error.
func key128(id id128.ID) (uint64, error) {
	const tickBits, nodeBits, seqBits = 41, 10, 12
	if id.Tick() >= 1<<tickBits || id.Worker() >= 1<<nodeBits || id.Counter() >= 1<<seqBits {
		return 0, fmt.Errorf("id128 %s (tick %d, worker %d, counter %d) does not fit a ledger key", id, id.Tick(), id.Worker(), id.Counter())
	}
	return id.Tick()<<(nodeBits+seqBits) | uint64(id.Worker())<<seqBits | uint64(id.Counter()), nil
}

func TestKey128(t *testing.T) {
	id := id128.MustParse("01a2016d-4944-7003-8500-005a3c9e41d7")
	k, err := key128(id)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := k, uint64(1795320269124)<<22|uint64(id.Counter()); got != want {
		t.Errorf("key128 = %d, want %d", got, want)
	}
	if id.Counter() != 3<<6|5 || id.Worker() != 0 {
		t.Fatalf("test ID: counter %d, worker %d", id.Counter(), id.Worker())
	}
}
