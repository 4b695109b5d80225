// Package soak holds floed's randomized soak: floed nodes on a three-member
// embedded etcd, each talking to every member through a fault proxy of its
// own, a client per node fetching IDs over the binary protocol throughout,
// and a seeded nemesis that pauses, kills and restarts nodes (sometimes
// with their clock stepped back or forward), partitions or slows a node's
// etcd traffic, and stops etcd's leader or, now and then, its quorum.
// In-process sequencers of the same sequence (the sequencer package, as an
// application embeds it) run next to the nodes, each on an etcd client of
// its own, with goroutines calling Next64 throughout: etcd's faults reach
// them, and the checker counts each as a node. At the end the checker
// verifies every ID was issued once, that each connection's (or caller's)
// IDs strictly increase and stay on one worker ID, that none was stamped
// before its request on its issuer's clock (the test's plus the node's clock
// offset), that the successive holders of a worker ID issued disjoint tick
// ranges, that a node cut off from etcd stopped serving within the lease
// TTL, and that every node serves again once the faults heal, and prints a
// summary with the longest unavailability of a node and of the whole
// cluster.
//
// The package has tests only, and its one test runs only when asked:
//
//	go test ./soak -run TestSoak -soak 60s -v
//
// or with FLOE_SOAK=60s in the environment. -soak.nodes sets the number of
// floed nodes (default 3), -soak.seqs the number of in-process sequencers
// (default 2), and -soak.seed replays a nemesis: the same faults on the
// same targets at the same planned times (the daemons' own choices, such
// as which free worker ID to claim, still vary).
package soak
