package sequencer_test

import (
	"context"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
)

// TestSequencer_FileStoreCrash runs a single node on a workerid.FileStore
// and crashes it (Orphan: nothing released, the store closed as a dead
// process's lock goes): the next start issues nothing at or below the
// reservation the crashed one made durable, although its clock reads a
// time below it.
func TestSequencer_FileStoreCrash(t *testing.T) {
	dir := t.TempDir()
	clock := floetest.NewClock(start)
	cfg := sequencer.Config{Name: "default", Clock: clock, Window: time.Second, Policy: floe.Fail}
	openStore := func() *workerid.FileStore {
		t.Helper()
		store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		return store
	}

	store := openStore()
	cfg.Source = workerid.NewStatic(3, store)
	sq := open(t, cfg)
	before := next64(t, sq, 100)
	reserved := sq.Stats().Reserved
	sq.Orphan()
	store.Close()
	if last := id64.Twitter.Parts(before[len(before)-1]).Tick; reserved <= last {
		t.Fatalf("reservation %d not above the last tick issued %d", reserved, last)
	}

	cfg.Source = workerid.NewStatic(3, openStore())
	sq = open(t, cfg)
	defer sq.Close(context.Background())
	if _, err := sq.Next64(); err == nil {
		t.Fatal("the restarted node issued with its clock below the crashed one's reservation")
	}
	clock.Step(time.Second)
	after := next64(t, sq, 100)
	if got := id64.Twitter.Parts(after[0]).Tick; got <= reserved {
		t.Errorf("first tick after the crash %d, want above the reservation %d", got, reserved)
	}
}
