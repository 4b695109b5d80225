package bench

import (
	"testing"
	"time"

	"github.com/floeid/floe/id64"
)

// Hazelcast's FlakeIdGenerator (Java, com.hazelcast.flakeidgen) composes a
// batch of IDs as
//
//	base      = (timestamp << (BITS_SEQUENCE + BITS_NODE_ID)) | nodeId
//	increment = 1 << BITS_NODE_ID
//	id(i)     = base + i*increment
//
// with timestamp in milliseconds since EPOCH_START, so that
// id = timestamp<<22 | sequence<<16 | nodeId. There is no Go library to
// check against; these are its constants and its formula.
const (
	hazelcastEpochStart   = 1514764800000 // 2018-01-01T00:00:00Z, in Unix ms
	hazelcastBitsSequence = 6
	hazelcastBitsNodeID   = 16
)

// hazelcastID is the ID Hazelcast makes at Unix millisecond ms, sequence
// seq, on node.
func hazelcastID(ms, seq, node int64) int64 {
	timestamp := ms - hazelcastEpochStart
	return timestamp<<(hazelcastBitsSequence+hazelcastBitsNodeID) | seq<<hazelcastBitsNodeID | node
}

// TestHazelcast_Formula checks id64.Hazelcast against Hazelcast's
// composition both ways: floe's IDs are the formula's, and floe reads the
// formula's IDs as the time, sequence and node they were made of.
func TestHazelcast_Formula(t *testing.T) {
	const node = 40000
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i, id := range floeIDs(t, id64.Hazelcast, node, start, 1000) {
		ms := start.UnixMilli() + int64(i/64)
		seq := int64(i % 64)
		if want := hazelcastID(ms, seq, node); id.Int64() != want {
			t.Fatalf("ID %d = %d, Hazelcast's formula gives %d", i, id, want)
		}
	}
	for _, tc := range []struct{ ms, seq, node int64 }{
		{hazelcastEpochStart, 0, 0},
		{1795650073630, 63, 65535},
		{hazelcastEpochStart + 1<<41 - 1, 17, 1},
	} {
		id := id64.ID(hazelcastID(tc.ms, tc.seq, tc.node))
		p := id64.Hazelcast.Parts(id)
		if p.Time.UnixMilli() != tc.ms || p.Sequence != uint64(tc.seq) || p.Worker != uint64(tc.node) {
			t.Errorf("%d: floe reads %+v, want ms %d, sequence %d, node %d", id, p, tc.ms, tc.seq, tc.node)
		}
	}
}
