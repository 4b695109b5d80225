//go:build unix

package soak_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floeid/floe/cluster/etcdtest"
	"github.com/floeid/floe/cluster/floedproc"
	"github.com/floeid/floe/internal/schedtest"
)

// policies are the nodes' clock policies, in turn.
var policies = []string{"wait", "borrow", "fail"}

// TestSoak runs floed nodes on etcd under random faults for the -soak
// duration while clients fetch IDs from every node, then checks that no ID
// was issued twice, among other things, and prints the summary (see the
// package doc).
func TestSoak(t *testing.T) {
	d, err := soakDuration()
	if err != nil {
		t.Fatal(err)
	}
	if d <= 0 {
		t.Skip("the soak runs with -soak DURATION or FLOE_SOAK=DURATION")
	}
	k := *nodesFlag
	if k < 2 {
		t.Fatalf("-soak.nodes %d: want at least 2", k)
	}
	if *seqsFlag < 0 {
		t.Fatalf("-soak.seqs %d: want at least 0", *seqsFlag)
	}
	// Setup, the last heals, recovery and teardown take well under a
	// minute.
	if dl, ok := t.Deadline(); ok && time.Until(dl) < d+time.Minute {
		t.Fatalf("-soak %v needs a -timeout of at least %v", d, d+time.Minute)
	}
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	fmt.Printf("soak: seed %d, %d nodes, %d in-process sequencers, %v of faults (replay with -soak.seed %d)\n", seed, k, *seqsFlag, d, seed)

	began := time.Now()
	ec := etcdtest.Start(t, 3)
	base := time.Now()
	var nodes []*node
	for i := range k {
		n := newNode(t, fmt.Sprintf("n%d", i+1), policies[i%len(policies)], ec.Endpoints(), base)
		n.start(t, 0)
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		if p, _ := n.current(); !p.WaitReady(10*time.Second, true) {
			t.Fatalf("%s not ready 10 s after its start:\n%s", n.name, p.Stderr())
		}
	}
	led := floedproc.NewLedger()
	stopClients := startClients(t, nodes, led)
	seqs, stopSeqs := startSeqs(t, *seqsFlag, ec, base, led)
	everyone := append(append([]*node(nil), nodes...), seqs...)
	if !floedproc.WaitFor(10*time.Second, func() bool { return allServedSince(everyone, 0) }) {
		t.Fatal("a node or an in-process sequencer served nothing within 10 s of the start")
	}

	from := time.Since(base)
	t.Logf("setup took %v; faults for %v (times are since the nodes started):", time.Since(began).Round(time.Millisecond), d)
	nm := newNemesis(t, seed, ec, nodes, base)
	nm.run(from, from+d)
	healed := time.Since(base)
	recovered := awaitRecovery(everyone, base, healed)
	end := time.Since(base)
	stopClients()
	stopSeqs()

	r := evaluate(everyone, nm, led, from, end, recovered)
	r.log(t, everyone, nm, led, healed)
	// Stop everything now rather than in the cleanups, to report the
	// whole time.
	for _, n := range nodes {
		if p, who := n.current(); p != nil {
			p.Kill()
			saveLog(t, p, who)
		}
		for _, p := range n.proxies {
			p.Close()
		}
	}
	ec.Stop()
	r.print(t, time.Since(began))
}

// startClients starts each node's client and returns the function that
// stops them and waits for them to return, which also runs when the test
// ends, before the daemons are killed.
func startClients(t *testing.T, nodes []*node, led *floedproc.Ledger) (stop func()) {
	halt := make(chan struct{})
	var wg sync.WaitGroup
	for _, n := range nodes {
		wg.Go(func() { n.client(led, halt) })
	}
	stop = sync.OnceFunc(func() {
		close(halt)
		wg.Wait()
	})
	t.Cleanup(stop)
	return stop
}

func allServedSince(nodes []*node, at time.Duration) bool {
	for _, n := range nodes {
		if !n.servedSince(at) {
			return false
		}
	}
	return true
}

// awaitRecovery waits up to recoveryBound for every node to serve after
// the faults healed (its work stretched by the slowdown measured since,
// re-measured as it waits), and returns how long each took (-1: not
// within the bound).
func awaitRecovery(nodes []*node, base time.Time, healed time.Duration) map[string]time.Duration {
	recovered := make(map[string]time.Duration)
	m := schedtest.Now()
	bound := func() time.Duration { return recoveryWaits + m.Scale(recoveryBound-recoveryWaits) }
	end := m.At.Add(bound())
	for i := 0; ; i++ {
		for _, n := range nodes {
			if _, ok := recovered[n.name]; !ok && n.servedSince(healed) {
				recovered[n.name] = time.Since(base) - healed
			}
		}
		if len(recovered) == len(nodes) {
			break
		}
		if i%10 == 9 {
			end = m.At.Add(bound())
		}
		if time.Now().After(end) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, n := range nodes {
		if _, ok := recovered[n.name]; !ok {
			recovered[n.name] = -1
		}
	}
	return recovered
}
