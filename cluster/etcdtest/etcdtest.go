// Package etcdtest runs embedded etcd members on free loopback ports for
// tests, with fast timers and no logs, and stops them when the test ends.
package etcdtest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/internal/faultproxy"
)

// Cluster is a set of embedded etcd members.
type Cluster struct {
	tb      testing.TB
	members []*Member
	sec     *Security // nil: plain, no authentication
}

// Security turns on TLS on the members' client ports, with client
// certificates, and optionally etcd's authentication.
type Security struct {
	CertFile string      // the members' certificate, PEM
	KeyFile  string      // its key, PEM
	CAFile   string      // the CA that must have signed every client's certificate, PEM
	Client   *tls.Config // how Client connects
	// RootPassword, when set, turns authentication on with a user root of
	// this password, whom Client then authenticates as.
	RootPassword string
}

// Member is one etcd member.
type Member struct {
	Name       string
	ClientAddr string // 127.0.0.1:port
	PeerAddr   string // where it listens for the other members
	// PeerProxy, with StartPeerProxies, is a fault proxy in front of
	// PeerAddr: the address the member advertises, through which every
	// connection another member opens to it passes (nil otherwise).
	PeerProxy *faultproxy.Proxy
	dir       string
	initial   string    // the initial-cluster string
	sec       *Security // nil: a plain client port
	timers    Timers

	mu      sync.Mutex
	etcd    *embed.Etcd   // guarded by mu: nil while stopped
	id      string        // guarded by mu: its member ID in hex, once started
	started bool          // guarded by mu: ever started (the next start joins an existing cluster)
	closing chan struct{} // guarded by mu: closed when the last Crash has closed the listeners
}

// Start runs a cluster of n members and waits until it has a leader. The
// members stop when the test ends; clients the test made must be closed
// before (register their Close with t.Cleanup after calling Start). Its
// raft timers are fast: a heartbeat every 10 ms and an election after
// 100 ms without one.
func Start(tb testing.TB, n int) *Cluster {
	tb.Helper()
	return start(tb, n, nil, fastTimers, false)
}

// StartPeerProxies is Start with a fault proxy in front of each member's
// peer port (Member.PeerProxy), which the member advertises to the
// others. A fault on a member's proxy applies to every connection another
// member opened to it: the raft streams that carry that member's messages
// to the others, and the others' requests to it. Freeze on it (with one
// on the proxy the member's clients go through) stands for a member that
// stopped answering: the others hear nothing from it and elect a leader
// among themselves. It does not cut what the others send it over the
// connections it opened itself, nor its requests to them.
func StartPeerProxies(tb testing.TB, n int) *Cluster {
	tb.Helper()
	return start(tb, n, nil, fastTimers, true)
}

// Timers are the raft timers of the members: the heartbeat interval and
// the election timeout, in whole milliseconds.
type Timers struct {
	Heartbeat, Election time.Duration
}

// fastTimers are Start's timers, which fail over quickly.
var fastTimers = Timers{Heartbeat: 10 * time.Millisecond, Election: 100 * time.Millisecond}

// ProductionTimers are etcd's default timers.
var ProductionTimers = Timers{Heartbeat: 100 * time.Millisecond, Election: time.Second}

// StartTimers is Start with the raft timers tm; the election timeout must
// be at least five heartbeats, as etcd requires.
func StartTimers(tb testing.TB, n int, tm Timers) *Cluster {
	tb.Helper()
	if tm.Heartbeat < time.Millisecond || tm.Election < 5*tm.Heartbeat {
		tb.Fatalf("etcdtest: timers %v heartbeat, %v election: want a heartbeat of at least 1ms and an election timeout of at least 5 heartbeats", tm.Heartbeat, tm.Election)
	}
	return start(tb, n, nil, tm, false)
}

// StartSecure is Start with TLS on the client ports and, with a root
// password, authentication on.
func StartSecure(tb testing.TB, n int, sec Security) *Cluster {
	tb.Helper()
	c := start(tb, n, &sec, fastTimers, false)
	if sec.RootPassword != "" {
		c.enableAuth(tb)
	}
	return c
}

// startAttempts bounds the starts of a cluster whose ports were taken
// between freeAddr and the members' own listen, by a test running in
// parallel.
const startAttempts = 5

func start(tb testing.TB, n int, sec *Security, tm Timers, proxied bool) *Cluster {
	tb.Helper()
	for range startAttempts - 1 {
		c, err := tryStart(tb, n, sec, tm, proxied)
		if err == nil {
			return c
		}
		c.Stop()
		if !strings.Contains(err.Error(), "address already in use") {
			tb.Fatalf("etcdtest: %v", err)
		}
	}
	c, err := tryStart(tb, n, sec, tm, proxied)
	if err != nil {
		tb.Fatalf("etcdtest: %v", err)
	}
	return c
}

// tryStart starts a cluster of n members on fresh ports, with proxies in
// front of their peer ports if proxied; the caller stops it after an
// error.
func tryStart(tb testing.TB, n int, sec *Security, tm Timers, proxied bool) (*Cluster, error) {
	tb.Helper()
	c := &Cluster{tb: tb, sec: sec}
	var initial []string
	for i := range n {
		addrs := floetest.FreeAddrs(tb, 2)
		m := &Member{
			Name:       fmt.Sprintf("m%d", i),
			ClientAddr: addrs[0],
			PeerAddr:   addrs[1],
			dir:        tb.TempDir(),
			sec:        sec,
			timers:     tm,
		}
		if proxied {
			p, err := faultproxy.ListenLabeled(m.PeerAddr, peerSender)
			if err != nil {
				return c, fmt.Errorf("member %s: peer proxy: %w", m.Name, err)
			}
			// Registered before the members' Stop: closed after it.
			tb.Cleanup(func() { p.Close() })
			m.PeerProxy = p
		}
		c.members = append(c.members, m)
		initial = append(initial, m.Name+"=http://"+m.advertisedPeer())
	}
	tb.Cleanup(c.Stop)
	errs := make(chan error, n)
	for _, m := range c.members {
		m.initial = strings.Join(initial, ",")
		go func() { errs <- m.start() }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return c, first
	}
	c.WaitLeader(tb)
	return c, nil
}

// Members returns the members in the order they were made.
func (c *Cluster) Members() []*Member { return c.members }

// Endpoints returns the members' client addresses.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.members {
		eps = append(eps, m.ClientAddr)
	}
	return eps
}

// Client returns a client of every member, closed when the test ends
// (before the members stop). With Security, it connects over TLS and, with
// authentication on, as root.
func (c *Cluster) Client(tb testing.TB) *clientv3.Client {
	tb.Helper()
	return c.ClientOf(tb, c.Endpoints())
}

// ClientOf is Client on other endpoints: fault proxies in front of the
// members, say, for a process whose network to etcd a test breaks.
func (c *Cluster) ClientOf(tb testing.TB, endpoints []string) *clientv3.Client {
	tb.Helper()
	cfg := clientv3.Config{
		Endpoints:   endpoints,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	}
	if c.sec != nil {
		cfg.TLS = c.sec.Client
		if c.sec.RootPassword != "" {
			cfg.Username, cfg.Password = "root", c.sec.RootPassword
		}
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		tb.Fatalf("etcdtest: client: %v", err)
	}
	tb.Cleanup(func() { cli.Close() })
	return cli
}

// enableAuth adds the user root with the root role and turns
// authentication on (etcd refuses to without a root user).
func (c *Cluster) enableAuth(tb testing.TB) {
	tb.Helper()
	cfg := clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop(), TLS: c.sec.Client}
	cli, err := clientv3.New(cfg)
	if err != nil {
		tb.Fatalf("etcdtest: client: %v", err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cli.UserAdd(ctx, "root", c.sec.RootPassword); err != nil {
		tb.Fatalf("etcdtest: adding user root: %v", err)
	}
	if _, err := cli.UserGrantRole(ctx, "root", "root"); err != nil {
		tb.Fatalf("etcdtest: granting root the root role: %v", err)
	}
	if _, err := cli.AuthEnable(ctx); err != nil {
		tb.Fatalf("etcdtest: enabling authentication: %v", err)
	}
}

// Leader returns the member that is leader now, or nil.
func (c *Cluster) Leader() *Member {
	for _, m := range c.members {
		m.mu.Lock()
		e := m.etcd
		m.mu.Unlock()
		if e != nil && e.Server.Leader() == e.Server.MemberID() {
			return m
		}
	}
	return nil
}

// WaitLeader waits up to 10 s until a running member is the leader.
func (c *Cluster) WaitLeader(tb testing.TB) *Member {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := c.Leader(); m != nil {
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	tb.Fatal("etcdtest: no leader after 10 s")
	return nil
}

// Stop stops every running member. It is safe to call more than once.
func (c *Cluster) Stop() {
	for _, m := range c.members {
		m.Stop()
	}
}

// Stop stops the member (it keeps its data); Restart starts it again. Stop
// is safe to call on a stopped member.
func (m *Member) Stop() {
	m.mu.Lock()
	e := m.etcd
	m.etcd = nil
	m.mu.Unlock()
	if e != nil {
		e.Close()
	}
	m.waitClosed()
}

// Crash stops the member's raft server at once, as a crash would: unlike
// Stop, a leader does not hand its leadership over first, so the others
// elect a new one after the election timeout, and it returns as soon as
// the member has stopped. Its client and peer listeners close in the
// background (gRPC waits for open streams up to the request timeout);
// Stop and Restart wait for that. It keeps its data.
func (m *Member) Crash() {
	m.mu.Lock()
	e := m.etcd
	m.etcd = nil
	if e == nil {
		m.mu.Unlock()
		return
	}
	closed := make(chan struct{})
	m.closing = closed
	m.mu.Unlock()
	e.Server.HardStop()
	go func() {
		defer close(closed)
		e.Close()
	}()
}

// waitClosed waits for the listeners of a crashed member to close.
func (m *Member) waitClosed() {
	m.mu.Lock()
	closed := m.closing
	m.mu.Unlock()
	if closed != nil {
		<-closed
	}
}

// Restart starts a stopped member again with its data and addresses.
func (m *Member) Restart(tb testing.TB) {
	tb.Helper()
	if err := m.start(); err != nil {
		tb.Fatalf("etcdtest: %v", err)
	}
}

// advertisedPeer is the address the other members reach it at.
func (m *Member) advertisedPeer() string {
	if m.PeerProxy != nil {
		return m.PeerProxy.Addr()
	}
	return m.PeerAddr
}

// Timers returns the member's raft timers, as its etcd server runs them;
// the zero Timers while it is stopped.
func (m *Member) Timers() Timers {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.etcd == nil {
		return Timers{}
	}
	cfg := m.etcd.Server.Cfg
	return Timers{Heartbeat: time.Duration(cfg.TickMs) * time.Millisecond, Election: time.Duration(cfg.ElectionTicks) * time.Duration(cfg.TickMs) * time.Millisecond}
}

// Running reports whether the member is started.
func (m *Member) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.etcd != nil
}

func (m *Member) start() error {
	m.waitClosed()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.etcd != nil {
		return fmt.Errorf("member %s already running", m.Name)
	}
	cfg := embed.NewConfig()
	cfg.Name = m.Name
	cfg.Dir = m.dir
	cfg.TickMs = uint(m.timers.Heartbeat / time.Millisecond)
	cfg.ElectionMs = uint(m.timers.Election / time.Millisecond)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	peer := url.URL{Scheme: "http", Host: m.PeerAddr}
	client := url.URL{Scheme: "http", Host: m.ClientAddr}
	if m.sec != nil {
		client.Scheme = "https"
		cfg.ClientTLSInfo = transport.TLSInfo{
			CertFile:       m.sec.CertFile,
			KeyFile:        m.sec.KeyFile,
			TrustedCAFile:  m.sec.CAFile,
			ClientCertAuth: true,
		}
	}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{{Scheme: "http", Host: m.advertisedPeer()}}
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.InitialCluster = m.initial
	cfg.InitialClusterToken = "floe-test"
	cfg.ClusterState = embed.ClusterStateFlagNew
	if m.started {
		cfg.ClusterState = embed.ClusterStateFlagExisting
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("member %s: %w", m.Name, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return fmt.Errorf("member %s: %w", m.Name, err)
	case <-time.After(20 * time.Second):
		e.Close()
		return fmt.Errorf("member %s not ready after 20 s", m.Name)
	}
	m.etcd, m.started, m.id = e, true, e.Server.MemberID().String()
	return nil
}

// senderHeader is the header of etcd's raft transport naming the member
// that opens a connection, in the first request of each: the raft streams
// it reads, the messages and snapshots it posts.
const senderHeader = "\r\nX-Server-From: "

// peerSender labels a peer connection by the member ID of its sender,
// from the first request's header; "" for the requests that carry none
// (a leader's lease renewals forwarded, version checks).
func peerSender(first []byte) string {
	_, after, ok := strings.Cut(string(first), senderHeader)
	if !ok {
		return ""
	}
	id, _, ok := strings.Cut(after, "\r\n")
	if !ok {
		return ""
	}
	return id
}

// Isolate cuts the member off from the others of a cluster started with
// StartPeerProxies, both ways, while on, as a network partition shorter
// than TCP's retransmissions would: it holds every connection another
// member opened to it (Freeze on its peer proxy) and every raft
// connection it opened to another (FreezeLabel on theirs), and delivers
// what they held when turned off. Its client port is untouched: its
// clients reach it, a member without a quorum. Its requests to the
// leader that name no sender (its clients' lease renewals, forwarded) are
// not held: for about an election timeout after it is cut off, while it
// still knows the leader, such a renewal succeeds, where a real partition
// would have it fail; past that it knows no leader to forward to.
func (c *Cluster) Isolate(tb testing.TB, m *Member, on bool) {
	tb.Helper()
	m.mu.Lock()
	id := m.id
	m.mu.Unlock()
	if m.PeerProxy == nil || id == "" {
		tb.Fatalf("etcdtest: Isolate(%s): want a member started with StartPeerProxies", m.Name)
	}
	m.PeerProxy.Freeze(on)
	for _, o := range c.members {
		if o != m {
			o.PeerProxy.FreezeLabel(id, on)
		}
	}
}

// Ctx returns a context that ends after d or with the test.
func Ctx(tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}
