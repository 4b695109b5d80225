package etcd

import (
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/balancer"
	"google.golang.org/grpc/balancer/base"
)

// balancerName is the gRPC load-balancing policy of the clients Dial
// makes: etcd's round robin over the members, which sets aside a member
// that stopped answering.
const balancerName = "floe_etcd_answering"

// A member that stops answering without closing its connections (a frozen
// process, a network that drops its packets) keeps its gRPC connection
// ready: the client's round robin keeps sending it a share of the
// requests, each of which waits out its deadline, and gRPC's keepalive
// notices only after 10 s at the least. The balancer watches the replies
// instead, and sets a member aside, for a cool-down, when
//   - a call to it has waited stallAfter with nothing heard from the
//     member since the call was sent, or
//   - a call to it ended, after minStall at least, with not one byte
//     received (its deadline passed, or its caller gave up).
//
// Requests then go to the other members; when every member is set aside,
// to all of them in turn. A member is heard from again when a reply
// arrives, and tried again once its cool-down ends, or when its
// connection is made anew.
const (
	stallAfter  = 300 * time.Millisecond
	minStall    = 100 * time.Millisecond
	coolDown    = 500 * time.Millisecond // after the first stall; doubled after each stall in a row
	maxCoolDown = 8 * time.Second
)

func init() {
	balancer.Register(answeringBuilder{})
}

// answeringBuilder builds a base round-robin balancer per client
// connection, with its own record of the members' replies.
type answeringBuilder struct{}

func (answeringBuilder) Name() string { return balancerName }

func (answeringBuilder) Build(cc balancer.ClientConn, opts balancer.BuildOptions) balancer.Balancer {
	pb := &pickerBuilder{h: newHealth(time.Now)}
	return addressed{base.NewBalancerBuilder(balancerName, pb, base.Config{}).Build(cc, opts)}
}

// addressed gives the base balancer, which reads the resolver state's
// addresses, those of the endpoints etcd's resolver sets instead.
type addressed struct{ balancer.Balancer }

func (b addressed) UpdateClientConnState(s balancer.ClientConnState) error {
	if len(s.ResolverState.Addresses) == 0 {
		for _, ep := range s.ResolverState.Endpoints {
			s.ResolverState.Addresses = append(s.ResolverState.Addresses, ep.Addresses...)
		}
	}
	return b.Balancer.UpdateClientConnState(s)
}

// health records, per member address, the calls waiting on it and when it
// last answered. It is shared by the pickers of one client connection.
type health struct {
	now func() time.Time // immutable

	mu      sync.Mutex
	members map[string]*memberHealth // guarded by mu: by address
	seq     uint64                   // guarded by mu: numbers the calls
}

type memberHealth struct {
	ready   bool                 // in the last picker's ready set
	waiting map[uint64]time.Time // unary calls sent and not ended, by number: when sent
	heard   time.Time            // the last reply
	aside   time.Time            // set aside until
	stalls  int                  // stalls in a row
}

func newHealth(now func() time.Time) *health {
	return &health{now: now, members: make(map[string]*memberHealth)}
}

// ready records the addresses of a new picker's ready connections: one
// that was not ready before has a new connection, and starts afresh.
func (h *health) ready(addrs []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	in := make(map[string]bool, len(addrs))
	for _, a := range addrs {
		in[a] = true
		m := h.members[a]
		if m == nil || !m.ready {
			m = &memberHealth{waiting: make(map[uint64]time.Time)}
			h.members[a] = m
		}
		m.ready = true
	}
	for a, m := range h.members {
		if !in[a] {
			m.ready = false
		}
	}
}

// answering reports whether the member at addr is not set aside at now.
// The caller holds mu.
func (h *health) answering(addr string, now time.Time) bool {
	m := h.members[addr]
	if m == nil {
		return true
	}
	if now.Before(m.aside) {
		return false
	}
	for _, sent := range m.waiting {
		if now.Sub(sent) >= stallAfter && m.heard.Before(sent) {
			m.setAside(now)
			return false
		}
	}
	return true
}

// setAside sets m aside from now for its cool-down.
func (m *memberHealth) setAside(now time.Time) {
	d := min(coolDown<<min(m.stalls, 8), maxCoolDown)
	m.stalls++
	m.aside = now.Add(d)
	clear(m.waiting) // judged: they count no more
}

// sent records a call sent to addr and returns its number; streams (the
// watches, lease keepalives) wait by design and are not counted while
// they last.
func (h *health) sent(addr string, unary bool, now time.Time) uint64 {
	h.seq++
	if m := h.members[addr]; m != nil && unary {
		m.waiting[h.seq] = now
	}
	return h.seq
}

// ended records the end of call n to addr, sent at sent.
func (h *health) ended(addr string, n uint64, sent time.Time, info balancer.DoneInfo) {
	now := h.now()
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.members[addr]
	if m == nil {
		return
	}
	delete(m.waiting, n)
	switch {
	case info.BytesReceived:
		m.heard, m.aside, m.stalls = now, time.Time{}, 0
	case info.Err != nil && now.Sub(sent) >= minStall && m.heard.Before(sent):
		m.setAside(now)
	}
}

type pickerBuilder struct{ h *health }

func (b *pickerBuilder) Build(info base.PickerBuildInfo) balancer.Picker {
	if len(info.ReadySCs) == 0 {
		return base.NewErrPicker(balancer.ErrNoSubConnAvailable)
	}
	p := &picker{h: b.h}
	for sc, sci := range info.ReadySCs {
		p.conns = append(p.conns, sc)
		p.addrs = append(p.addrs, sci.Address.Addr)
	}
	b.h.ready(p.addrs)
	return p
}

// picker takes the members in turn, skipping those set aside.
type picker struct {
	h     *health            // immutable
	conns []balancer.SubConn // immutable
	addrs []string           // immutable: by conns' index
	next  atomic.Uint32
}

// streams are the etcd calls that last: no reply is due while they do.
var streams = map[string]bool{
	"/etcdserverpb.Watch/Watch":          true,
	"/etcdserverpb.Lease/LeaseKeepAlive": true,
	"/etcdserverpb.Maintenance/Snapshot": true,
	"/v3electionpb.Election/Observe":     true,
}

func (p *picker) Pick(info balancer.PickInfo) (balancer.PickResult, error) {
	n := len(p.conns)
	start := int(p.next.Add(1)-1) % n
	now := p.h.now()
	p.h.mu.Lock()
	i := start
	for k := range n {
		if j := (start + k) % n; p.h.answering(p.addrs[j], now) {
			i = j
			break
		}
	}
	addr := p.addrs[i]
	seq := p.h.sent(addr, !streams[info.FullMethodName], now)
	p.h.mu.Unlock()
	return balancer.PickResult{
		SubConn: p.conns[i],
		Done:    func(di balancer.DoneInfo) { p.h.ended(addr, seq, now, di) },
	}, nil
}
