package scale_test

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
)

var (
	scaleFlag  = flag.Bool("scale", false, "run the scale tests ($FLOE_SCALE); they are skipped otherwise")
	nFlag      = flag.Int("scale.n", 1024, "TestScaleStart: sequencers started at once, 1..1024 (the worker IDs of snowcast-1024)")
	steadyFlag = flag.Duration("scale.steady", 10*time.Second, "TestScaleStart: how long to count the steady-state etcd requests, at least 1s")
	idsFlag    = flag.Int("scale.ids", 1000, "TestScaleStart: IDs each sequencer issues, twice, for the duplicate check, 1..100000")
	triesFlag  = flag.Int("scale.tries", 9, "TestScaleFullClaim: timed claims of each kind, 1..100")
	electFlag  = flag.Duration("scale.election", time.Second, "etcd's election timeout, 10ms..10s; the heartbeat is a tenth of it (etcd's defaults: 1s and 100ms; the other cluster tests run 100ms)")
)

// options are the scale tests' settings.
type options struct {
	n      int           // sequencers started at once
	steady time.Duration // the steady-state window
	ids    int           // IDs each sequencer issues per round
	tries  int           // timed claims of the full namespace
	elect  time.Duration // etcd's election timeout
}

// timers are the raft timers of the scale tests' etcd members.
func (o options) timers() etcdtest.Timers {
	return etcdtest.Timers{Heartbeat: o.elect / 10, Election: o.elect}
}

// maxSequencers is how many sequencers a snowcast-1024 sequence serves.
const maxSequencers = 1024

// validate refuses settings the tests cannot run with, naming the flag.
func (o options) validate() error {
	switch {
	case o.n < 1 || o.n > maxSequencers:
		return fmt.Errorf("-scale.n %d: want 1..%d, the worker IDs of snowcast-1024", o.n, maxSequencers)
	case o.steady < time.Second:
		return fmt.Errorf("-scale.steady %v: want at least 1s", o.steady)
	case o.ids < 1 || o.ids > 100000:
		return fmt.Errorf("-scale.ids %d: want 1..100000", o.ids)
	case o.tries < 1 || o.tries > 100:
		return fmt.Errorf("-scale.tries %d: want 1..100", o.tries)
	case o.elect < 10*time.Millisecond || o.elect > 10*time.Second || o.elect%(10*time.Millisecond) != 0:
		return fmt.Errorf("-scale.election %v: want 10ms..10s in whole 10ms", o.elect)
	}
	return nil
}

// enabled reports whether the scale tests were asked for: -scale, or
// $FLOE_SCALE set to a boolean that is true. A value of $FLOE_SCALE that
// is not a boolean is an error, with or without the flag.
func enabled(flagSet bool, env string) (bool, error) {
	if env == "" {
		return flagSet, nil
	}
	on, err := strconv.ParseBool(env)
	if err != nil {
		return false, fmt.Errorf("$FLOE_SCALE %q: want a boolean (1, true, 0, false)", env)
	}
	return flagSet || on, nil
}

// setup skips the test unless the scale tests were asked for, and returns
// their options.
func setup(t *testing.T) options {
	t.Helper()
	if testing.Short() {
		t.Skip("a scale test: skipped under -short")
	}
	on, err := enabled(*scaleFlag, os.Getenv("FLOE_SCALE"))
	if err != nil {
		t.Fatal(err)
	}
	if !on {
		t.Skip("a scale test: run it with -scale or FLOE_SCALE=1")
	}
	o := options{n: *nFlag, steady: *steadyFlag, ids: *idsFlag, tries: *triesFlag, elect: *electFlag}
	if err := o.validate(); err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOptions(t *testing.T) {
	good := options{n: 1024, steady: 10 * time.Second, ids: 1000, tries: 9, elect: time.Second}
	for _, tc := range []struct {
		name string
		edit func(*options)
		want string // the error; empty for none
	}{
		{"the defaults", func(*options) {}, ""},
		{"one sequencer", func(o *options) { o.n = 1 }, ""},
		{"no sequencers", func(o *options) { o.n = 0 }, "-scale.n 0: want 1..1024, the worker IDs of snowcast-1024"},
		{"more sequencers than worker ids", func(o *options) { o.n = 1025 }, "-scale.n 1025: want 1..1024, the worker IDs of snowcast-1024"},
		{"a short steady window", func(o *options) { o.steady = 500 * time.Millisecond }, "-scale.steady 500ms: want at least 1s"},
		{"no ids", func(o *options) { o.ids = 0 }, "-scale.ids 0: want 1..100000"},
		{"no tries", func(o *options) { o.tries = 0 }, "-scale.tries 0: want 1..100"},
		{"too many tries", func(o *options) { o.tries = 101 }, "-scale.tries 101: want 1..100"},
		{"the test timers", func(o *options) { o.elect = 100 * time.Millisecond }, ""},
		{"a short election timeout", func(o *options) { o.elect = 5 * time.Millisecond }, "-scale.election 5ms: want 10ms..10s in whole 10ms"},
		{"a long election timeout", func(o *options) { o.elect = 11 * time.Second }, "-scale.election 11s: want 10ms..10s in whole 10ms"},
		{"an election timeout of a broken heartbeat", func(o *options) { o.elect = 1005 * time.Millisecond }, "-scale.election 1.005s: want 10ms..10s in whole 10ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := good
			tc.edit(&o)
			got := ""
			if err := o.validate(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("validate() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flag    bool
		env     string
		want    bool
		wantErr string
	}{
		{"neither", false, "", false, ""},
		{"the flag", true, "", true, ""},
		{"the variable on", false, "1", true, ""},
		{"the variable off", false, "false", false, ""},
		{"the flag over the variable off", true, "0", true, ""},
		{"a bad variable with the flag", true, "yes", false, `$FLOE_SCALE "yes": want a boolean (1, true, 0, false)`},
		{"a bad variable", false, "yes", false, `$FLOE_SCALE "yes": want a boolean (1, true, 0, false)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := enabled(tc.flag, tc.env)
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if got != tc.want || gotErr != tc.wantErr {
				t.Errorf("enabled(%v, %q) = %v, %q; want %v, %q", tc.flag, tc.env, got, gotErr, tc.want, tc.wantErr)
			}
		})
	}
}
