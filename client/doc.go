// Package client fetches 64-bit IDs from servers that speak the noeq binary
// protocol: floed, and noeqd before it.
//
//	c, err := client.New([]string{"ids1:4444", "ids2:4444"}, client.WithToken(token))
//	...
//	defer c.Close()
//	id, err := c.Next(ctx)
//
// A Client is safe for concurrent use, holds no global state and never logs
// unless given a logger (WithLogger). It uses the standard library only.
//
// # Protocol
//
// A connection opens with an auth frame (0x00, the token's length, the
// token) when the client has a token; the server sends nothing back. Then
// each request is one byte n, 1..255, and its reply n IDs of 8 bytes,
// big-endian. Requests are pipelined. A server closes the connection on any
// error: a wrong token, a clock that ran backwards, a lost worker-ID lease.
//
// # Connections and failover
//
// New does no I/O. The client keeps a small pool of connections (4 by
// default, WithPoolSize), dialled when calls need them, each to a random
// address (the first healthy one with WithNoRandomize). A DNS name is looked
// up again at most every 30 seconds (WithResolveInterval), and successive
// connections take its addresses in turn.
//
// Any error on a connection (a failed dial, write or read, a reply cut
// short, the attempt timeout) drops it, passes its address over for a
// second and retires the address's other connections; the call waits a
// back-off (exponential from 10 ms to 1 s with ±50% jitter: WithBackoff,
// WithJitter, WithDelayFunc) and tries again, on another address when one
// is up, until it has made 5 attempts (WithMaxAttempts). It then fails with
// an *AttemptsError that lists each attempt's address and error. A pooled
// connection that fails before the server answered anything is first
// replaced once for free, since the server may have closed it for being
// idle. Every call takes a context; when it ends, the call returns at once.
//
// # Checks
//
// The client takes a reply's 8 bytes for an ID only when a live server of
// its layout (WithLayout, id64.Twitter by default: noeqd's and floed's)
// can have issued it. Each ID must be above the one before it on its
// connection, as a server's IDs are, and its time, read in the layout,
// must lie within WithMaxSkew (ten minutes by default) of the local clock,
// ahead or behind: floed issues IDs at most its --max-ahead (1 s) or
// --reserve-window (2 s) ahead of its clock, so the bound leaves room for
// clocks minutes apart, while bytes that are not an ID read as a time
// years away (an HTTP server's "HTTP/1.1" reads as the year 2050). Bits a
// signed layout never sets are rejected too. A reply that fails is an
// attempt failed with ErrInvalidReply, naming the ID and what is wrong:
// the connection is dropped, its address passed over, the call fails over
// as on any other error, and Stats counts it. The checks cost one compare
// per ID and a clock reading per reply, and cover every path: single
// calls, batches, runs of NextN and prefetch refills.
//
// # Batching
//
// Concurrent calls for up to 255 IDs share requests, as a database groups
// commits. The client has up to one request in flight on each connection
// of its pool (WithPoolSize; one in all with WithPrefetch, see Order). A
// call that finds a connection free sends its
// own request at once, from its own goroutine. Calls that come while every
// connection has a request in flight queue; when a reply arrives, one
// request goes out on that connection for all of them (pipelined as
// several requests of up to 255 IDs when they want more, up to 4,080 IDs
// in 16 requests of 255, the most one round trip carries; the rest take
// the next connection to come free), and each call gets its share in the
// order the calls came. Under load each round trip thus serves every call
// that came while all the connections were busy; with a pool of one, every
// call that came during the round trip before. No ID is fetched before a
// call asks for it (unless WithPrefetch). Failed attempts aside, a call
// waits for its own request, and when every connection is busy, first for
// one of their replies, unless thousands of IDs wait ahead of it.
//
// # Order
//
// IDs handed to different calls are distinct, as the servers make them.
// When a call returns before another begins, from the same goroutine or
// another, the later call's IDs are all greater, as long as both come from
// one server that issues increasing IDs across its connections (floed
// does, for each sequence). So the IDs one goroutine gets from successive
// calls increase. Calls that overlap in time may get theirs in either
// order.
//
// Without prefetch, a call's IDs come from a request sent after the call
// began, so after the server issued the IDs of every call that had
// returned. With WithPrefetch, the client keeps one request in flight at a
// time, each sent after the reply before it was read, so each reply's IDs
// are above those of the replies before, and the buffer hands them out in
// that order. A call the buffer cannot serve waits for the request in
// flight: sending its own beside it would fetch newer IDs, and hand the
// older ones of the request in flight to later calls. The buffer also
// drops any ID that is not above every ID the client has handed out (a
// run of NextN beyond 255 IDs goes to a server on its own).
//
// Failover to another server breaks this order: its IDs may be lower.
// With WithPrefetch, buffered IDs below those already handed out are then
// dropped, until the new server's IDs pass them: with the servers' clocks
// in step, within a tick or so.
//
// # Prefetch
//
// WithPrefetch(n, validity) keeps up to n IDs buffered, topped up by the
// requests the client sends anyway and refilled in the background when the
// buffer falls below half, so that most calls need no round trip. One
// request is in flight at a time (see Order), for up to 4,080 IDs. IDs are
// only handed out while younger than validity, counted from before their
// request was sent; older ones are dropped unused, so that no call gets an
// ID issued more than validity before it. The price is gaps: IDs dropped
// or buffered at Close are never used.
package client
