package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/statefile"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
)

// "floe new" issues id64 IDs as floed's default sequence does, on floed's
// state: the same directory, lock, record and reservation. So runs take
// turns on the lock and each starts above the last one, a stopped floed's
// IDs are never repeated, and a running floed refuses the directory.
const (
	// newHolder is how the lock file names a "floe new" run; runs wait for
	// one another, and refuse any other holder at once.
	newHolder = "floe new"
	// newSequence is the record floe new shares: floed's default sequence.
	newSequence = "default"
	// newSequence128 is the record of floe new's id128 IDs: floed keeps
	// none of that format unless told to, and a floed started with
	// --seq new-id128=id128 (and the same worker) continues it.
	newSequence128 = "new-id128"
	// newWindow is how far ahead a run reserves: a run killed before it
	// records its last tick leaves the next one at most this to wait.
	// floed's 2 s would make every such wait 2 s; a shorter window costs
	// a reservation write every 7/16 of it while a run lasts.
	newWindow = 200 * time.Millisecond
	// newDefaultWait is how long a run waits for the lock by default:
	// long enough for a few hundred runs started together to take their
	// turns on a slow disk.
	newDefaultWait = 30 * time.Second
	// lockRetryMax caps the pause between two tries of the lock.
	lockRetryMax = 20 * time.Millisecond
	// clockPoll is how often a run reads the clock while it waits for it
	// to pass a killed holder's reservation.
	clockPoll = 5 * time.Millisecond
	// releaseTimeout bounds the write of the last tick at the end of a run.
	releaseTimeout = 5 * time.Second
)

// newHelp ends "floe new -h".
const newHelp = `
Durability: id64 IDs are issued on floed's state, as floed's default
sequence: floe new takes the state directory's lock (-state, else
$FLOE_STATE, else floed's default: $STATE_DIRECTORY, $XDG_STATE_HOME/floed
or ~/.local/state/floed) and its reservation. Concurrent runs take turns
(each waits up to -wait) and each starts above the IDs of the runs before
it and of a floed stopped before it; a floed started later starts above
them. A running floed on the same directory is refused at once: ask it with
"floe get". A run reserves 200 ms ahead and records its last ID when it
ends, so the next run starts right above it; a run that is killed leaves
the next one at most 200 ms to wait (a killed floed, its reservation
window, 2 s by default; -wait bounds that wait too). The directory keeps one definition
(-layout, -d, -w): another one needs its own -state.

id128 (RFC 9562 version-7 UUIDs) is issued the same way, on the same
state directory, in a record of its own ("new-id128", worker -worker, 0
by default): runs on one machine never repeat an ID. Machines that share
no state directory need distinct -worker values, as floed nodes need
distinct worker IDs; a floed started on the directory with
--seq new-id128=id128 (and that worker) continues the record.

id80 and id96 keep no state: a random partition (-partition) or node
(-node) makes two runs' IDs differ, with a small chance of a repeat between
runs that draw the same one.
`

// stateDir returns the state directory of "floe new": flag, when given,
// else $FLOE_STATE, else floed's default.
func stateDir(flag string, given bool, lookup func(string) (string, bool)) (string, error) {
	if given {
		if flag == "" {
			return "", errors.New(`-state "": want a state directory`)
		}
		return flag, nil
	}
	if d, ok := lookup("FLOE_STATE"); ok {
		if d == "" {
			return "", errors.New(`$FLOE_STATE is set but empty: want a state directory (unset it for floed's default)`)
		}
		return d, nil
	}
	return statefile.DefaultDir(lookup), nil
}

// localDefinition is what floed's state file records for its default
// sequence in layout l with the node (datacenter, worker); floe new
// records the same, so that it and floed share the record.
func localDefinition(l id64.Layout, datacenter, worker uint64) string {
	return fmt.Sprintf("id64 layout=%q datacenter=%d worker=%d", l.String(), datacenter, worker)
}

// localDefinition128 is what floed's state file records for an id128
// sequence of worker; floe new records the same.
func localDefinition128(worker uint16) string {
	return fmt.Sprintf("id128 worker=%d", worker)
}

// durable64 is a sequence on floed's state: the locked directory and the
// sequencer on its reservation. It is id64's, or id128's.
type durable64 struct {
	store *workerid.FileStore
	sq    *sequencer.Sequencer
}

// openDurable64 takes the lock of dir, waiting up to wait while other
// "floe new" runs hold it, and opens the default sequence on its record.
func openDurable64(dir string, wait time.Duration, l id64.Layout, datacenter, worker uint64, p floe.Policy) (*durable64, error) {
	node, err := l.Node(datacenter, worker)
	if err != nil {
		return nil, err
	}
	return openDurable(dir, wait, newSequence, localDefinition(l, datacenter, worker),
		sequencer.Definition{Format: sequencer.Format64, Layout: l}, int(node), p)
}

// openDurable128 is openDurable64 for id128 IDs of worker, in their own
// record of dir.
func openDurable128(dir string, wait time.Duration, worker uint16, p floe.Policy) (*durable64, error) {
	return openDurable(dir, wait, newSequence128, localDefinition128(worker),
		sequencer.Definition{Format: sequencer.Format128}, int(worker), p)
}

// openDurable takes the lock of dir, as openDurable64 does, and opens the
// record name (of definition local) as a sequence of def on worker ID id.
func openDurable(dir string, wait time.Duration, name, local string, def sequencer.Definition, id int, p floe.Policy) (*durable64, error) {
	store, err := lockState(dir, wait, name, local)
	if err != nil {
		return nil, err
	}
	sq, err := sequencer.Open(context.Background(), sequencer.Config{
		Name:       name,
		Definition: def,
		Source:     workerid.NewStatic(id, store),
		Policy:     p,
		Window:     newWindow,
	})
	if err != nil {
		store.Close()
		return nil, fmt.Errorf("state directory %s: %w", dir, err)
	}
	d := &durable64{store: store, sq: sq}
	if err := d.awaitClock(p, wait); err != nil {
		d.close()
		return nil, fmt.Errorf("state directory %s: %w; a floed or floe new that was killed reserved ahead of the clock (wait longer with -wait)", dir, err)
	}
	return d, nil
}

// awaitClock waits, under the policies that wait, up to wait for the clock
// to pass the reservation a killed holder left: floed reserves 2 s ahead
// by default, more with a longer --reserve-window, and the generator
// would fail at once on a wait longer than its 5 s.
func (d *durable64) awaitClock(p floe.Policy, wait time.Duration) error {
	if p == floe.Fail {
		return nil
	}
	deadline := time.Now().Add(wait)
	for {
		err := d.sq.Ready()
		if err == nil || !time.Now().Before(deadline) {
			return err
		}
		time.Sleep(clockPoll)
	}
}

// close ends the run cleanly: it records the last tick issued, so that
// the next run starts right above it, and releases the directory.
func (d *durable64) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
	defer cancel()
	err := d.sq.Close(ctx)
	if cerr := d.store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording the last ID in %s (the next run starts above the reservation instead): %w", d.store.Path(), err)
	}
	return nil
}

// lockState opens the record name in dir. While another
// "floe new" holds the directory, or a holder that has not named itself
// yet, it tries again, pausing up to lockRetryMax, until wait has passed;
// any other holder (floed) is refused at once.
func lockState(dir string, wait time.Duration, name, def string) (*workerid.FileStore, error) {
	deadline := time.Now().Add(wait)
	pause := time.Millisecond
	for {
		store, err := workerid.OpenFile(workerid.FileConfig{Dir: dir, Name: name, Definition: def, Holder: newHolder})
		var le *statefile.LockedError
		switch {
		case err == nil:
			return store, nil
		case errors.Is(err, workerid.ErrConflict):
			return nil, fmt.Errorf("state directory %s: %w; a state directory keeps one definition, as floed's default sequence does: give this one its own with -state", dir, err)
		case !errors.As(err, &le):
			return nil, fmt.Errorf("state directory %s: %w", dir, err)
		case le.Known() && le.Holder.Name != newHolder:
			return nil, heldError(le)
		case !time.Now().Before(deadline):
			by := "a process that has not recorded its name (a floed of an earlier version?)"
			if le.Known() {
				by = le.Holder.String()
			}
			return nil, fmt.Errorf("state directory %s still in use after %v: its lock file %s is held by %s; floe new runs take turns there, each for as long as it issues (wait longer with -wait)", dir, wait, le.Lock, by)
		}
		// A random pause, so that waiting runs do not try in step.
		time.Sleep(pause/2 + rand.N(pause/2+1))
		pause = min(2*pause, lockRetryMax)
	}
}

// heldError refuses a directory held by a process other than floe new.
func heldError(le *statefile.LockedError) error {
	if isFloed(le.Holder.Name) {
		return fmt.Errorf(`state directory %s is in use by %s: a running floed issues this worker ID's IDs, and floe new issues none beside it; ask floed with "floe get" (or GET /v1/ids), or stop it first`, le.Dir, le.Holder)
	}
	return fmt.Errorf("state directory %s is in use by %s, which keeps its reservation there; floe new issues no IDs beside it: stop it first", le.Dir, le.Holder)
}

// isFloed reports whether a lock file's holder name is floed's program
// name.
func isFloed(name string) bool { return name == "floed" }
