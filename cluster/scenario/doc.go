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
// The TestKube scenarios (kube_*_test.go) run floed nodes with --kube
// --kubeconfig, and applications on a kube.Catalog, against a real
// kube-apiserver (cluster/kubetest), as a service account whose only
// rights are floe's Role: a holder killed (its Lease taken over only once
// a claimer saw it unchanged for the lease duration, which a watch of the
// Lease times), paused past its lease and continued, black-holed from the
// API server through a fault proxy of its own and healed, the API server
// restarted (SIGTERM and SIGKILL) and its etcd stopped and restarted
// under load, a graceful handoff, and a named sequence destroyed and
// created again while a member serving it is cut off. TestSeq_Kube runs
// the in-process sequencer scenarios on the Kubernetes API.
//
// On every coordinator, the feeds of a floed's default sequence and of an
// in-process id64 sequencer (both of the Twitter layout) also check that
// no ID is stamped before its request was sent (checkStamps), unless the
// scenario sets the daemon's clock behind on purpose.
//
// The package has tests only. Timings are short (2 s leases, 1 s
// reservation windows) so that the whole package runs in a few minutes.
package scenario
