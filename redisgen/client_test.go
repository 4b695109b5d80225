package redisgen_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/faultproxy"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/internal/schedtest"
	"github.com/floeid/floe/redisgen"
	"github.com/redis/go-redis/v9"
)

// TestMain silences go-redis's own log of failed dials: the tests kill
// servers on purpose.
func TestMain(m *testing.M) {
	redis.SetLogger(quiet{})
	os.Exit(m.Run())
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// startShards starts one redis-server per shard and sets its shard ID.
func startShards(t *testing.T, opt []redisgen.Option, shards ...uint64) ([]*redistest.Server, []string) {
	t.Helper()
	var servers []*redistest.Server
	var addrs []string
	for _, shard := range shards {
		s := redistest.Start(t)
		if err := redisgen.Init(context.Background(), s.Addr, shard, false, opt...); err != nil {
			t.Fatalf("Init %s: %v", s.Addr, err)
		}
		servers = append(servers, s)
		addrs = append(addrs, s.Addr)
	}
	return servers, addrs
}

func newClient(t *testing.T, addrs []string, opt ...redisgen.Option) *redisgen.Client {
	t.Helper()
	c, err := redisgen.New(context.Background(), addrs, opt...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// shardOf is the shard (node) of an ID of layout l.
func shardOf(l id64.Layout, id id64.ID) uint64 { return l.Parts(id).Node }

// TestClient_ThreeShards issues from many goroutines over three servers and
// checks that every ID is unique and that each goroutine sees each shard's
// IDs strictly increase.
func TestClient_ThreeShards(t *testing.T) {
	_, addrs := startShards(t, nil, 0, 1, 2)
	c := newClient(t, addrs)
	ctx := context.Background()
	const workers, each = 8, 300
	check := floetest.NewChecker[id64.ID](workers * each * 2)
	seenShards := sync.Map{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			last := map[uint64]id64.ID{}
			observe := func(id id64.ID) {
				shard := shardOf(c.Layout(), id)
				seenShards.Store(shard, true)
				if prev, ok := last[shard]; ok && id <= prev {
					t.Errorf("worker %d: shard %d issued %d after %d", w, shard, id, prev)
				}
				last[shard] = id
				check.Add(id)
			}
			for i := range each {
				if i%3 == 0 {
					ids, err := c.NextN(ctx, 5)
					if err != nil {
						t.Error(err)
						return
					}
					for _, id := range ids {
						observe(id)
					}
					continue
				}
				id, err := c.Next(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				observe(id)
			}
		})
	}
	wg.Wait()
	if err := check.Err(); err != nil {
		t.Fatal(err)
	}
	for _, shard := range []uint64{0, 1, 2} {
		if _, ok := seenShards.Load(shard); !ok {
			t.Errorf("no ID from shard %d: round robin is not spreading calls", shard)
		}
	}
}

// TestClient_ServerKilled kills one of three servers while clients fetch;
// calls keep succeeding from the others and every ID stays unique.
func TestClient_ServerKilled(t *testing.T) {
	servers, addrs := startShards(t, nil, 0, 1, 2)
	c := newClient(t, addrs)
	ctx := context.Background()
	check := floetest.NewChecker[id64.ID](10000)
	var issued atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 600 {
				id, err := c.Next(ctx)
				if err != nil {
					failed.Add(1)
					t.Errorf("Next after a server died: %v", err)
					return
				}
				check.Add(id)
				issued.Add(1)
			}
		})
	}
	for issued.Load() < 300 {
		time.Sleep(time.Millisecond)
	}
	servers[1].Kill()
	wg.Wait()
	if err := check.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d IDs, %d failed calls, shard 1 killed after about 300", issued.Load(), failed.Load())
}

func TestClient_Exhaustion(t *testing.T) {
	ctx := context.Background()
	t.Run("spent tick fails when the next is too far", func(t *testing.T) {
		// An hour-long tick of 4 IDs: the fifth must fail, never repeat.
		slow := id64.Layout{Epoch: redisgen.DefaultLayout.Epoch, Unit: time.Hour, TimeBits: 20, WorkerBits: 10, SequenceBits: 2}
		opt := []redisgen.Option{redisgen.WithLayout(slow)}
		_, addrs := startShards(t, opt, 3)
		c := newClient(t, addrs, opt...)
		ids, err := c.NextN(ctx, 4)
		if err != nil || len(ids) != 4 {
			t.Fatalf("NextN(4) = %v, %v", ids, err)
		}
		if err := floetest.Unique(ids); err != nil {
			t.Fatal(err)
		}
		_, err = c.Next(ctx)
		if !errors.Is(err, redisgen.ErrExhausted) {
			t.Fatalf("fifth ID in the tick: got %v, want ErrExhausted", err)
		}
		if !strings.Contains(err.Error(), addrs[0]) {
			t.Errorf("error %q does not name the server", err)
		}
	})
	t.Run("waits for the next millisecond", func(t *testing.T) {
		tiny := id64.Layout{Epoch: redisgen.DefaultLayout.Epoch, Unit: time.Millisecond, TimeBits: 41, WorkerBits: 10, SequenceBits: 2}
		opt := []redisgen.Option{redisgen.WithLayout(tiny)}
		_, addrs := startShards(t, opt, 7)
		c := newClient(t, addrs, opt...)
		ids, err := c.NextN(ctx, 200) // 4 per millisecond: 50 ticks
		if err != nil {
			t.Fatal(err)
		}
		if err := floetest.Unique(ids); err != nil {
			t.Fatal(err)
		}
		if err := floetest.Increasing(ids, id64.ID.Compare); err != nil {
			t.Fatal(err)
		}
	})
}

// TestClient_ClockRegression writes a last tick an hour in the future into
// one server's state, as if Redis's clock had been set back an hour.
func TestClient_ClockRegression(t *testing.T) {
	ctx := context.Background()
	servers, addrs := startShards(t, nil, 0, 1)
	c := newClient(t, addrs)
	before, err := c.NextN(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: servers[0].Addr})
	defer rdb.Close()
	l := redisgen.DefaultLayout
	future, _ := l.Tick(time.Now().Add(time.Hour))
	state := rdb.HGet(ctx, "floe:redisgen:state", "layout").Val()
	if err := rdb.HSet(ctx, "floe:redisgen:state", "tick", future, "seq", 0, "layout", state).Err(); err != nil {
		t.Fatal(err)
	}
	// Only server 0 may refuse: the client goes on with server 1.
	check := floetest.NewChecker[id64.ID](100)
	check.Add(before...)
	for range 40 {
		id, err := c.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if shardOf(l, id) != 1 {
			t.Fatalf("ID %d from shard %d, whose clock is behind", id, shardOf(l, id))
		}
		check.Add(id)
	}
	if err := check.Err(); err != nil {
		t.Fatal(err)
	}
	// A client of server 0 alone gets the clock error.
	solo := newClient(t, addrs[:1])
	_, err = solo.Next(ctx)
	var ce *floe.ClockError
	if !errors.As(err, &ce) || !errors.Is(err, floe.ErrClockBackwards) || ce.Behind < 59*time.Minute {
		t.Fatalf("got %v, want a clock error about an hour behind", err)
	}
}

func TestNew_Refuses(t *testing.T) {
	ctx := context.Background()
	t.Run("missing shard key", func(t *testing.T) {
		s := redistest.Start(t)
		_, err := redisgen.New(ctx, []string{s.Addr})
		if !errors.Is(err, redisgen.ErrNoShard) || !strings.Contains(err.Error(), s.Addr) {
			t.Fatalf("got %v, want ErrNoShard naming %s", err, s.Addr)
		}
	})
	t.Run("duplicate shard", func(t *testing.T) {
		_, addrs := startShards(t, nil, 4, 5, 4)
		_, err := redisgen.New(ctx, addrs)
		if !errors.Is(err, redisgen.ErrDuplicateShard) {
			t.Fatalf("got %v, want ErrDuplicateShard", err)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		s := redistest.Start(t, "--requirepass", "right")
		if err := redisgen.Init(ctx, s.Addr, 1, false, redisgen.WithAuth("", "right")); err != nil {
			t.Fatal(err)
		}
		_, err := redisgen.New(ctx, []string{s.Addr}, redisgen.WithAuth("", "wrong"))
		var ae *redisgen.AttemptError
		if !errors.As(err, &ae) || ae.Addr != s.Addr || !strings.Contains(err.Error(), "WRONGPASS") {
			t.Fatalf("got %v, want a WRONGPASS error for %s", err, s.Addr)
		}
		if _, err := redisgen.New(ctx, []string{s.Addr}, redisgen.WithAuth("", "right")); err != nil {
			t.Fatalf("right password: %v", err)
		}
	})
	t.Run("unreachable server", func(t *testing.T) {
		s := redistest.Start(t)
		s.Kill()
		if _, err := redisgen.New(ctx, []string{s.Addr}); err == nil || !strings.Contains(err.Error(), s.Addr) {
			t.Fatalf("got %v, want an error naming %s", err, s.Addr)
		}
	})
	t.Run("shard outside the layout", func(t *testing.T) {
		s := redistest.Start(t)
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
		defer rdb.Close()
		rdb.Set(ctx, "floe:redisgen:shard", "5000", 0)
		if _, err := redisgen.New(ctx, []string{s.Addr}); !errors.Is(err, redisgen.ErrBadShard) {
			t.Fatalf("got %v, want ErrBadShard", err)
		}
	})
	t.Run("no servers", func(t *testing.T) {
		if _, err := redisgen.New(ctx, nil); !errors.Is(err, redisgen.ErrNoServers) {
			t.Fatalf("got %v, want ErrNoServers", err)
		}
	})
	t.Run("sequence above the shard", func(t *testing.T) {
		l := redisgen.DefaultLayout
		l.Order = id64.TimeSequenceNode
		if _, err := redisgen.New(ctx, []string{"127.0.0.1:1"}, redisgen.WithLayout(l)); !errors.Is(err, redisgen.ErrLayout) {
			t.Fatalf("got %v, want ErrLayout", err)
		}
	})
	t.Run("layout finer than a microsecond", func(t *testing.T) {
		l := redisgen.DefaultLayout
		l.Unit = 500 * time.Nanosecond
		if _, err := redisgen.New(ctx, []string{"127.0.0.1:1"}, redisgen.WithLayout(l)); !errors.Is(err, redisgen.ErrLayout) {
			t.Fatalf("got %v, want ErrLayout", err)
		}
	})
}

func TestClient_LayoutMismatch(t *testing.T) {
	ctx := context.Background()
	_, addrs := startShards(t, nil, 2)
	c := newClient(t, addrs)
	if _, err := c.Next(ctx); err != nil {
		t.Fatal(err)
	}
	other := redisgen.DefaultLayout
	other.Unit = 10 * time.Millisecond
	other.TimeBits = 36
	d := newClient(t, addrs, redisgen.WithLayout(other))
	if _, err := d.Next(ctx); !errors.Is(err, redisgen.ErrLayoutMismatch) {
		t.Fatalf("got %v, want ErrLayoutMismatch", err)
	}
}

func TestClient_ScriptFlushed(t *testing.T) {
	ctx := context.Background()
	servers, addrs := startShards(t, nil, 9)
	c := newClient(t, addrs)
	rdb := redis.NewClient(&redis.Options{Addr: servers[0].Addr})
	defer rdb.Close()
	if err := rdb.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Next(ctx); err != nil {
		t.Fatalf("Next after SCRIPT FLUSH (EVALSHA must fall back to EVAL): %v", err)
	}
}

// TestDefaultLayout_Milliseconds pins the time unit: an ID's time is Redis's
// clock in milliseconds since the epoch, not icicle's seconds-from-
// milliseconds mix-up, and the layout lasts past 2080.
func TestDefaultLayout_Milliseconds(t *testing.T) {
	ctx := context.Background()
	servers, addrs := startShards(t, nil, 1)
	c := newClient(t, addrs)
	id, err := c.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: servers[0].Addr})
	defer rdb.Close()
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	got := redisgen.DefaultLayout.Time(id)
	if d := now.Sub(got); d < 0 || d > 2*time.Second {
		t.Errorf("ID time %v is %v from Redis's clock %v", got, d, now)
	}
	if end := redisgen.DefaultLayout.End(); end.Year() < 2080 {
		t.Errorf("DefaultLayout ends %v, want after 2080", end)
	}
	if want := time.Date(2014, 5, 28, 11, 44, 33, 0, time.UTC); !redisgen.DefaultLayout.Epoch.Equal(want) {
		t.Errorf("epoch %v, want %v", redisgen.DefaultLayout.Epoch, want)
	}
}

func TestInit(t *testing.T) {
	ctx := context.Background()
	s := redistest.Start(t)
	tests := []struct {
		name  string
		shard uint64
		force bool
		want  error
	}{
		{"set", 3, false, nil},
		{"same again", 3, false, nil},
		{"different refused", 4, false, redisgen.ErrShardSet},
		{"different forced", 4, true, nil},
		{"outside the layout", 1024, false, redisgen.ErrBadShard},
	}
	for _, tc := range tests {
		if err := redisgen.Init(ctx, s.Addr, tc.shard, tc.force); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	c := newClient(t, []string{s.Addr})
	if got := c.Shards()[s.Addr]; got != 4 {
		t.Errorf("shard %d, want 4", got)
	}
}

func ExampleNew() {
	ctx := context.Background()
	// Once per server: floe redis init --shard N --addr host:port
	c, err := redisgen.New(ctx, []string{"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"})
	if err != nil {
		fmt.Println(err) // names every server that failed the start-up checks
		return
	}
	defer c.Close()
	id, err := c.Next(ctx)
	fmt.Println(id, err)
}

func ExampleCheckDurable() {
	ctx := context.Background()
	if err := redisgen.Init(ctx, "10.0.0.1:6379", 1, false); err != nil {
		fmt.Println(err)
		return
	}
	if err := redisgen.CheckDurable(ctx, "10.0.0.1:6379"); err != nil {
		// A *NotDurableError: for example "AOF is off (aof_enabled:0):
		// set appendonly yes". The IDs are unique until the server restarts
		// empty.
		fmt.Println("warning:", err)
	}
}

// CheckDurable names each setting a server lacks to keep redisgen's keys
// across a restart; Init accepts such a server all the same.
func TestCheckDurable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // nil: durable; else each is in the error
	}{
		{name: "aof always", args: []string{"--appendonly", "yes", "--appendfsync", "always"}},
		{name: "no persistence", want: []string{"is not restart-safe for redisgen", "AOF is off (aof_enabled:0): set appendonly yes", `appendfsync is "everysec"`, "can repeat IDs"}},
		{name: "aof everysec", args: []string{"--appendonly", "yes", "--appendfsync", "everysec"}, want: []string{`appendfsync is "everysec"`, "set appendfsync always"}},
		{name: "config renamed", args: []string{"--appendonly", "yes", "--rename-command", "CONFIG", ""}, want: []string{"appendfsync cannot be checked"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := redistest.Start(t, tt.args...)
			ctx := context.Background()
			if err := redisgen.Init(ctx, s.Addr, 1, false); err != nil {
				t.Fatalf("Init: %v", err)
			}
			err := redisgen.CheckDurable(ctx, s.Addr)
			if tt.want == nil {
				if err != nil {
					t.Errorf("CheckDurable: %v, want nil", err)
				}
				return
			}
			var nd *redisgen.NotDurableError
			if !errors.As(err, &nd) || !errors.Is(err, redisgen.ErrNotDurable) || nd.Addr != s.Addr {
				t.Fatalf("CheckDurable: %v, want a *NotDurableError of %s", err, s.Addr)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckDurable: %v\nwant it to contain %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "AOF is off") != (len(tt.args) == 0) {
				t.Errorf("CheckDurable: %v: AOF named off on a server with args %q", err, tt.args)
			}
		})
	}
}

// A server that restarted without persistence lost its shard: New's error
// says so.
func TestNew_ShardLostInRestart(t *testing.T) {
	t.Parallel()
	s := redistest.Start(t)
	ctx := context.Background()
	if err := redisgen.Init(ctx, s.Addr, 1, false); err != nil {
		t.Fatal(err)
	}
	s.Restart()
	_, err := redisgen.New(ctx, []string{s.Addr})
	if !errors.Is(err, redisgen.ErrNoShard) || !strings.Contains(err.Error(), "restart without AOF") {
		t.Errorf("New after a restart without persistence: %v, want ErrNoShard naming the restart without AOF", err)
	}
}

// slowCall is a call of TestClient_ServerHung slower than half the
// request timeout: when it started and how long it took.
type slowCall struct {
	at   time.Time
	took time.Duration
}

// TestClient_ServerHung hangs one of three servers, frozen (SIGSTOP) or
// behind a black hole (its connections stay open and nothing answers),
// while clients fetch: every call
// succeeds, none waits much longer than one request timeout, and once the
// client knows the server hangs, it sends it one probe per cool-down, not a
// share of every caller's calls. After the server answers again, it issues
// again.
func TestClient_ServerHung(t *testing.T) {
	const (
		timeout  = 500 * time.Millisecond
		cooldown = 500 * time.Millisecond
		hung     = 4 * time.Second
		workers  = 8
		// slack is how much longer than the request timeout a call may take on
		// an idle machine: the failed attempt, then another server's reply.
		// It is work: stretched by the slowdown schedtest measured.
		slack = 500 * time.Millisecond
	)
	tests := []struct {
		name string
		// start returns how to hang srv and how to make it answer again;
		// it may point addr (srv's) at a proxy in front of it.
		start func(t *testing.T, srv *redistest.Server, addr *string) (hang, answer func())
	}{
		{name: "frozen", start: func(t *testing.T, srv *redistest.Server, _ *string) (func(), func()) {
			t.Cleanup(srv.Resume) // before the kill, which cannot stop a stopped group otherwise
			return srv.Pause, srv.Resume
		}},
		{name: "black hole", start: func(t *testing.T, srv *redistest.Server, addr *string) (func(), func()) {
			px, err := faultproxy.Listen(srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { px.Close() })
			*addr = px.Addr()
			return func() { px.Blackhole(true) }, px.Heal
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := schedtest.Now()
			servers, addrs := startShards(t, nil, 0, 1, 2)
			hang, answer := tt.start(t, servers[1], &addrs[1])
			c := newClient(t, addrs, redisgen.WithTimeout(timeout), redisgen.WithCooldown(cooldown))
			ctx := context.Background()
			check := floetest.NewChecker[id64.ID](1 << 20)
			var (
				mu      sync.Mutex
				slow    []slowCall // each call slower than timeout/2
				longest time.Duration
				calls   int
			)
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range workers {
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						start := time.Now()
						id, err := c.Next(ctx)
						took := time.Since(start)
						if err != nil {
							t.Errorf("Next with one of three servers hung: %v", err)
							return
						}
						check.Add(id)
						mu.Lock()
						calls++
						longest = max(longest, took)
						if took > timeout/2 {
							slow = append(slow, slowCall{start, took})
						}
						mu.Unlock()
						time.Sleep(time.Millisecond)
					}
				})
			}
			time.Sleep(300 * time.Millisecond)
			hang()
			paused := time.Now()
			time.Sleep(hung)
			answer()
			resumed := time.Now()
			// Once the cool-down after the last probe ends, the server is asked again.
			deadline := time.Now().Add(5 * time.Second)
			served := false
			for !served && time.Now().Before(deadline) {
				id, err := c.Next(ctx)
				if err == nil && shardOf(c.Layout(), id) == 1 {
					served = true
					t.Logf("shard 1 served again %v after it resumed", time.Since(resumed).Round(time.Millisecond))
				}
				time.Sleep(time.Millisecond)
			}
			close(stop)
			wg.Wait()
			if err := check.Err(); err != nil {
				t.Fatal(err)
			}
			if !served {
				t.Error("shard 1 issued nothing within 5 s of resuming")
			}
			// Slow calls that started once the client knew (a request timeout and a
			// bit after the pause): one probe per cool-down and its request timeout.
			// A call that waited on the hung server takes its request timeout
			// at least, whatever the load; one that did not, its round trips,
			// timeout/2 at most on an idle machine, but longer on a loaded
			// one: the line between them is timeout/2 stretched by the
			// slowdown measured, never above the timeout itself.
			sd := m.Slowdown()
			slowAt := min(time.Duration(float64(timeout/2)*sd), timeout)
			known := paused.Add(timeout + time.Duration(float64(slack)*sd))
			var late, slower int
			for _, sc := range slow {
				if sc.took < slowAt {
					continue
				}
				slower++
				if sc.at.After(known) && sc.at.Before(resumed) {
					late++
				}
			}
			maxLate := int((resumed.Sub(known))/(cooldown)) + 2
			t.Logf("%d calls, longest %v; slowdown %.2f; %d slower than %v, %d of them while the hang was known (at most %d wanted)",
				calls, longest.Round(time.Millisecond), sd, slower, slowAt, late, maxLate)
			if bound := timeout + time.Duration(float64(slack)*sd); longest > bound {
				t.Errorf("a call took %v with one of three servers hung, want at most the request timeout %v and %v", longest, timeout, bound-timeout)
			}
			if late > maxLate {
				t.Errorf("%d calls waited on the hung server once the client knew it hung, want at most %d (one probe per cool-down of %v)", late, maxLate, cooldown)
			}
		})
	}
}
