// Package scenario holds end-to-end fault scenarios of floed clusters:
// floed processes (cluster/floedproc) on embedded etcd members
// (cluster/etcdtest) or real redis-server processes, with clients fetching
// IDs over the binary protocol throughout, while a node is killed, paused,
// partitioned, restarted with its clock stepped back, or its coordinator
// loses its leader or its quorum, has a member that stops answering (black
// holed both ways or one way, or frozen) while the others keep a quorum,
// or splits into a majority and a minority with nodes on both sides. Every scenario records each ID issued in
// a floedproc.Ledger and fails on any duplicate, then checks the property
// of its fault: who serves a worker ID, how soon, and above which tick.
//
// The TestSeq scenarios (seq_*_test.go) do the same for the sequencer
// package run in this process, as an application embeds it, on a
// three-member etcd and on Redis: a lease lost to a partition or to
// replies delayed past the TTL, etcd's quorum loss, a graceful handoff,
// detach and attach under load, two processes contending for one worker
// ID, and a destroy while serving. The TestSeq_*ID128 scenarios run the
// partition, the replies past the TTL, the handoff and the crashed holder
// on id128 sequences (version-7 UUIDs) too. TestScenario_ID128 runs the
// process faults (a pause past the TTL, a graceful stop, a kill, a
// partition from etcd) on floed nodes serving an id128 sequence, which
// its clients fetch over HTTP.
//
// The package has tests only. Timings are short (2 s leases, 1 s
// reservation windows) so that the whole package runs in a few minutes.
package scenario
