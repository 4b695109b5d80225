package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

// newFormatFlags are the flags of "floe new" that apply to one -format
// only; given with another format, they are a usage error.
var newFormatFlags = map[string]string{
	"layout": "id64", "d": "id64", "w": "id64",
	"meta": "id80", "partition": "id80",
	"node":   "id96",
	"worker": "id128",
}

// newStateFormats are the formats "floe new" issues on floed's state
// directory, which -state and -wait apply to.
var newStateFormats = []string{"id64", "id128"}

func runNew(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("new", stderr)
	format := fs.String("format", "id64", "ID format: id64, id80, id96 or id128 (RFC 9562 version-7 UUIDs)")
	n := fs.Int("n", 1, "number of IDs")
	out := fs.String("o", "text", "output: text (one per line), json (an array of strings) or decimal (one integer per line)")
	layout := fs.String("layout", "twitter", "id64 layout: "+id64.LayoutHelp)
	datacenter := fs.Uint64("d", 0, "id64 datacenter ID")
	worker := fs.Uint64("w", 0, "id64 worker ID")
	meta := fs.Uint("meta", 0, "id80 metabyte, 0..255")
	partition := fs.Uint("partition", 0, "id80 partition, 0..65535 (0: a random one)")
	node := fs.Uint64("node", 0, "id96 node, 0..4294967295 (0: a random one)")
	worker128 := fs.Uint64("worker", 0, "id128 worker ID, 0..65535; machines that share no state directory need distinct ones")
	policy := fs.String("policy", "wait", "clock policy: wait, fail or borrow (ticktock for id80)")
	state := fs.String("state", "", "id64 and id128 state directory, shared with floed (default $FLOE_STATE, else floed's: $STATE_DIRECTORY, $XDG_STATE_HOME/floed or ~/.local/state/floed)")
	wait := fs.Duration("wait", newDefaultWait, "id64 and id128: how long to wait for the state directory while other floe new runs hold it, and for the clock to pass a reservation that a killed floed or run left")
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(stderr, newHelp)
	}
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := onlyFor(fs, "format", *format, newFormatFlags); err != nil {
		return err
	}
	var stateErr error
	fs.Visit(func(f *flag.Flag) {
		if (f.Name == "state" || f.Name == "wait") && stateErr == nil && !slices.Contains(newStateFormats, *format) {
			stateErr = usageError(fs, "-%s is for -format id64 or id128, not %s", f.Name, *format)
		}
	})
	if stateErr != nil {
		return stateErr
	}
	if *n < 0 {
		return fmt.Errorf("-n %d: want a count of 0 or more", *n)
	}
	p, err := floe.ParsePolicy(*policy)
	if err != nil {
		return fmt.Errorf("-policy: %w", err)
	}
	if *out != "text" && *out != "json" && *out != "decimal" {
		return fmt.Errorf("-o %q: want text, json or decimal", *out)
	}
	if *wait < 0 {
		return fmt.Errorf("-wait %v: want a duration of 0 or more", *wait)
	}
	stateGiven := false
	fs.Visit(func(f *flag.Flag) { stateGiven = stateGiven || f.Name == "state" })

	var next func() (text string, num *big.Int, err error)
	var durable *durable64 // id64's or id128's state, released at the end
	switch *format {
	case "id64":
		l, err := parseLayoutFlag("-layout", *layout)
		if err != nil {
			return err
		}
		if *datacenter > l.MaxDatacenter() {
			return fmt.Errorf("-d %d: out of range: want 0..%d for layout %s", *datacenter, l.MaxDatacenter(), *layout)
		}
		if *worker > l.MaxWorker() {
			return fmt.Errorf("-w %d: out of range: want 0..%d for layout %s", *worker, l.MaxWorker(), *layout)
		}
		if p != floe.Wait && p != floe.Fail && p != floe.Borrow {
			return fmt.Errorf("-policy %s: want wait, fail or borrow for id64", p)
		}
		dir, err := stateDir(*state, stateGiven, os.LookupEnv)
		if err != nil {
			return err
		}
		if *n == 0 {
			// Nothing to issue: the state is left alone.
			next = nil
			break
		}
		d, err := openDurable64(dir, *wait, l, *datacenter, *worker, p)
		if err != nil {
			return err
		}
		durable = d
		next = func() (string, *big.Int, error) {
			id, err := d.sq.Next64()
			return id.String(), new(big.Int).SetUint64(id.Uint64()), err
		}
	case "id80":
		if *meta > 255 {
			return fmt.Errorf("-meta %d: out of range: want 0..255", *meta)
		}
		if *partition > id80.MaxPartition {
			return fmt.Errorf("-partition %d: out of range: want 0..%d", *partition, id80.MaxPartition)
		}
		part := id80.PartitionFromUint16(uint16(*partition))
		if *partition == 0 {
			part = id80.NewPartition()
		}
		g, err := id80.NewGenerator(id80.Config{Partition: part, Policy: p})
		if err != nil {
			return err
		}
		next = func() (string, *big.Int, error) {
			id, err := g.New(byte(*meta))
			return id.String(), new(big.Int).SetBytes(id.Bytes()), err
		}
	case "id96":
		if *node > 1<<32-1 {
			return fmt.Errorf("-node %d: out of range: want 0..%d", *node, uint64(1<<32-1))
		}
		g, err := id96.NewGenerator(id96.Config{Node: uint32(*node), Policy: p})
		if err != nil {
			return err
		}
		next = func() (string, *big.Int, error) {
			id, err := g.Next()
			return id.String(), new(big.Int).SetBytes(id.Bytes()), err
		}
	case "id128":
		if *worker128 > id128.MaxWorker {
			return fmt.Errorf("-worker %d: out of range: want 0..%d", *worker128, id128.MaxWorker)
		}
		if p != floe.Wait && p != floe.Fail && p != floe.Borrow {
			return fmt.Errorf("-policy %s: want wait, fail or borrow for id128", p)
		}
		dir, err := stateDir(*state, stateGiven, os.LookupEnv)
		if err != nil {
			return err
		}
		if *n == 0 {
			next = nil
			break
		}
		d, err := openDurable128(dir, *wait, uint16(*worker128), p)
		if err != nil {
			return err
		}
		durable = d
		next = func() (string, *big.Int, error) {
			id, err := d.sq.Next128()
			return id.String(), new(big.Int).SetBytes(id[:]), err
		}
	default:
		return fmt.Errorf("-format %q: want id64, id80, id96 or id128", *format)
	}
	if durable != nil {
		// After the output's flush below: the last tick is recorded once
		// every ID is out.
		defer func() {
			if cerr := durable.close(); err == nil {
				err = cerr
			}
		}()
	}

	w := bufio.NewWriter(stdout)
	defer w.Flush()
	var all []string
	for range *n {
		text, num, err := next()
		if err != nil {
			return err
		}
		switch *out {
		case "json":
			all = append(all, text)
		case "decimal":
			fmt.Fprintln(w, num)
		default:
			fmt.Fprintln(w, text)
		}
	}
	if *out == "json" {
		if all == nil {
			all = []string{}
		}
		enc := json.NewEncoder(w)
		return enc.Encode(all)
	}
	return nil
}
