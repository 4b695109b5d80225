package main

import (
	"fmt"
	"slices"
	"strings"
)

// otherVars are FLOE_* variables that floed does not read but others do:
// the floe CLI's own (its floed address for "floe seq"), and the knobs of
// floe's test suites. A shell that exports them for those must still start
// floed, so checkEnvNames passes them over. A variable the CLI shares with
// floed (FLOE_TOKEN, FLOE_ADMIN_TOKEN, FLOE_REDIS_PASSWORD) is in envVars
// or tokenVars and means the same to both; FLOE_REDIS_PASSWORD without
// --redis, which the CLI's "floe redis init" may have wanted, floed ignores
// (ParseFlags).
var otherVars = []string{
	"FLOE_ADMIN_ADDR", // floe seq, floe admin: floed's HTTP address
	"FLOE_KUBE_BIN",   // cluster/kubetest's kube-apiserver and kubectl (scripts/kube-apiserver; CI exports it)
	"FLOE_PG18",       // cluster/pgtest's PostgreSQL 18 (scripts/pg18; CI exports it)
	"FLOE_SCALE",      // cluster/scale's tests
	"FLOE_SOAK",       // cluster/soak's tests
}

// knownVars returns every FLOE_* name floed reads or passes over.
func knownVars() []string {
	names := append([]string{}, tokenVars...)
	for _, v := range envVars {
		names = append(names, v.name)
	}
	return append(names, otherVars...)
}

// checkEnvNames checks the names of environ's FLOE_* variables ("NAME=value",
// as os.Environ gives them; the prefix in any case): a name floed does not
// know is an error naming it and the closest known name, so that a
// misspelled FLOE_WROKER never leaves a node running as worker 0. It
// returns the otherVars that are set, which floed ignores.
func checkEnvNames(environ []string) (ignored []string, err error) {
	known := knownVars()
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(strings.ToUpper(name), "FLOE_") {
			continue
		}
		switch {
		case slices.Contains(otherVars, name):
			ignored = append(ignored, name)
		case !slices.Contains(known, name):
			return ignored, fmt.Errorf("unknown variable %s; did you mean %s? (floed -h lists floed's variables)", name, closest(name, known))
		}
	}
	return ignored, nil
}

// closest returns the name of names nearest to s by edit distance, the
// first of equals.
func closest(s string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		if d := editDistance(strings.ToUpper(s), n); bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance of a and b: insertions, deletions, substitutions and swaps of
// adjacent bytes, each costing 1.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
