// Package server is the core of floed: named ID sequences, each with its own
// generator and durable reservation, served over the noeq binary protocol,
// HTTP and gRPC, with Prometheus metrics on an injected registry.
//
// A Server is built by New from a Config, then serves the binary protocol on
// any number of listeners (Serve), HTTP through Handler and gRPC
// (floe.v1.IDs, health, reflection) on any number of listeners
// (ServeGRPC). Shutdown stops
// accepting, lets in-flight replies finish, stops the reservation keepers and
// records a clean stop. It follows net/http.Server: Serve returns
// ErrServerClosed after Shutdown.
//
// # Reservations
//
// Every sequence runs on a sequencer.Sequencer, which holds its worker ID
// and keeps a reservation R in its Source (a Store through
// workerid.Static for a fixed node, etcd or Redis in a cluster): the
// highest tick it may issue. New writes R = max(floor, now) + Window
// before the first ID; the sequencer's keeper raises it to a window above
// need again whenever little more than half the window is left, and raises
// the generator's ceiling only after the new R is durable. A restarted
// server starts strictly above the recorded R (or above the last tick
// issued, when the previous run stopped cleanly), so a crash, a restart or
// a clock set back never repeats an ID.
//
// # Waiting
//
// Requests of one sequence take turns in arrival order. A request waits
// for its turn, and then at the reservation ceiling for the keeper, at
// most Config.MaxWait from its own arrival; a request whose client goes
// away (an HTTP request's context, a binary connection closed by its peer)
// gives its turn up, and Shutdown ends every wait at once (see wait.go).
package server
