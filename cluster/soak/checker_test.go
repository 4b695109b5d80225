//go:build unix

package soak_test

import (
	"strings"
	"testing"
	"time"
)

// The checker's own tests: they run without -soak, in milliseconds.

func TestChecker_Disjoint(t *testing.T) {
	tests := []struct {
		name  string
		conns []*connRecord
		bad   int // overlapping connections
	}{
		{"one process", []*connRecord{
			{who: "n1#1", worker: 7, lo: 10, hi: 20}, {who: "n1#1", worker: 7, lo: 15, hi: 30},
		}, 0},
		{"a handoff above the last tick", []*connRecord{
			{who: "n1#1", worker: 7, lo: 10, hi: 20}, {who: "n1#2", worker: 7, lo: 21, hi: 30},
		}, 0},
		{"a handoff at the same tick", []*connRecord{
			{who: "n1#1", worker: 7, lo: 10, hi: 20}, {who: "n1#2", worker: 7, lo: 20, hi: 30},
		}, 1},
		{"a new holder below the old one", []*connRecord{
			{who: "n1#1", worker: 7, lo: 10, hi: 20}, {who: "n2#1", worker: 7, lo: 5, hi: 12},
		}, 1},
		{"back and forth", []*connRecord{
			{who: "n1#1", worker: 7, lo: 10, hi: 20}, {who: "n2#1", worker: 7, lo: 21, hi: 30},
			{who: "n1#1", worker: 7, lo: 31, hi: 40},
		}, 0},
		{"other worker IDs", []*connRecord{
			{who: "n1#1", worker: 7, lo: 10, hi: 20}, {who: "n2#1", worker: 8, lo: 10, hi: 20},
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &result{}
			got := r.disjoint([]*node{{conns: tt.conns}})
			if n := len(got); tt.bad == 0 && n != 0 || tt.bad > 0 && (n != tt.bad+1) {
				t.Errorf("disjoint() = %q, want %d overlaps", got, tt.bad)
			}
		})
	}
}

func TestChecker_Unavailability(t *testing.T) {
	s := time.Second
	n := &node{name: "n1", dead: []span{{from: 3 * s, to: 5 * s}}}
	for _, at := range []time.Duration{1 * s, 2 * s, 7 * s, 8 * s} {
		n.fetches = append(n.fetches, fetch{sent: at, recv: at})
	}
	m := &node{name: "n2"}
	for _, at := range []time.Duration{1 * s, 4500 * time.Millisecond, 6 * s, 8 * s} {
		m.fetches = append(m.fetches, fetch{sent: at, recv: at})
	}
	r := &result{}
	r.unavailability([]*node{n, m}, 0, 8*s)
	// n1: 2 s to 7 s less 2 s without a process; n2: 1 s to 4.5 s.
	if got := r.perNode[0].length; got != 3*s {
		t.Errorf("n1: longest gap %v, want 3s", got)
	}
	if r.longest.node != "n2" || r.longest.length != 3500*time.Millisecond || r.longest.from != 1*s {
		t.Errorf("longest gap %+v, want n2's 3.5 s from 1 s", r.longest)
	}
	// Nobody from 2 s to 4.5 s.
	if r.cluster.length != 2500*time.Millisecond || r.cluster.from != 2*s {
		t.Errorf("cluster gap %+v, want 2.5 s from 2 s", r.cluster)
	}
}

func TestChecker_Isolation(t *testing.T) {
	s := time.Second
	n := &node{name: "n1"}
	for _, sent := range []time.Duration{10 * s, 11 * s, 12 * s, 10*s + ttl + isolationSlop} {
		n.fetches = append(n.fetches, fetch{sent: sent, recv: sent})
	}
	cut := &fault{kind: "partition", node: n, start: 10 * s, end: 20 * s, isolated: span{from: 10 * s, to: 20 * s}}
	r := &result{}
	if bad := r.isolation([]*node{n}, &nemesis{faults: []*fault{cut}}); len(bad) != 0 {
		t.Errorf("served within TTL+slop: isolation() = %q, want nothing", bad)
	}
	n.fetches = append(n.fetches, fetch{sent: 13 * s, recv: 13 * s})
	bad := r.isolation([]*node{n}, &nemesis{faults: []*fault{cut}})
	if len(bad) != 1 || !strings.Contains(bad[0], "3s after partition") {
		t.Errorf("served 3 s after the cut: isolation() = %q, want one report", bad)
	}
}
