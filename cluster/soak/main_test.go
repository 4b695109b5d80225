//go:build unix

package soak_test

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/floedproc"
)

var (
	soakFlag  = flag.Duration("soak", 0, "run TestSoak's faults for this long, e.g. 60s ($FLOE_SOAK); 0 skips it")
	nodesFlag = flag.Int("soak.nodes", 3, "floed nodes in the soak, at least 2")
	seqsFlag  = flag.Int("soak.seqs", 2, "in-process sequencers of the soak's sequence next to the floed nodes, at least 0")
	seedFlag  = flag.Uint64("soak.seed", 0, "the nemesis's seed, to replay a soak; 0 picks one")
	logsFlag  = flag.String("soak.logs", "", "write each floed process's log to this directory as NODE#N.log")
)

// soakDuration is how long the soak injects faults: -soak, else
// $FLOE_SOAK, else 0 (no soak).
func soakDuration() (time.Duration, error) {
	if *soakFlag != 0 {
		return *soakFlag, nil
	}
	v := os.Getenv("FLOE_SOAK")
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("$FLOE_SOAK %q: %w", v, err)
	}
	return d, nil
}

// bin is the floed binary, built only when the soak runs.
var bin string

func TestMain(m *testing.M) {
	flag.Parse()
	if d, err := soakDuration(); err == nil && d > 0 {
		os.Exit(floedproc.Main(m, &bin))
	}
	os.Exit(m.Run())
}
