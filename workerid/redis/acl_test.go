package redis

import (
	"context"
	"errors"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
	goredis "github.com/redis/go-redis/v9"
)

// documentedACL returns the arguments of the "ACL SETUSER" of docs/clusters.md for floed's
// Redis user, after "ACL SETUSER": the comment lines that hold it, joined.
func documentedACL(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../../docs/clusters.md")
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	in := false
	for line := range strings.Lines(string(b)) {
		text, comment := strings.CutPrefix(strings.TrimSpace(line), "#")
		switch {
		case !in && comment && strings.Contains(text, "ACL SETUSER"):
			_, rest, _ := strings.Cut(text, "ACL SETUSER")
			words, in = strings.Fields(rest), true
		case in && comment:
			words = append(words, strings.Fields(text)...)
		case in:
			return words
		}
	}
	if len(words) == 0 {
		t.Fatal("docs/clusters.md has no ACL SETUSER line")
	}
	return words
}

// setUser runs ACL SETUSER with args on the server behind admin and returns
// a client that logs in as that user with password "secret".
func setUser(t *testing.T, admin *goredis.Client, addr string, args ...string) *goredis.Client {
	t.Helper()
	cmd := []any{"acl", "setuser"}
	for _, a := range args {
		cmd = append(cmd, a)
	}
	if err := admin.Do(ctxFor(t, opTimeout), cmd...).Err(); err != nil {
		t.Fatalf("ACL SETUSER %q: %v", args, err)
	}
	rdb := goredis.NewClient(&goredis.Options{Addr: addr, Username: args[0], Password: "secret",
		DialTimeout: 5 * time.Second, MaxRetries: -1})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// The ACL user of docs/clusters.md runs floed's whole life of a sequence: create,
// attach (claim, reserve, hear destroys), destroy, and create again, and
// the new generation's sequencer issues above the tick the destroyed one
// reserved (an hour ahead of the clock here, so that the clock alone does
// not carry the new generation past it).
func TestDocumentedACL(t *testing.T) {
	t.Parallel()
	acl := documentedACL(t)
	if acl[0] != "floe" || !slices.Contains(acl, ">secret") {
		t.Fatalf("docs/clusters.md's ACL is %q, want user floe with password secret", acl)
	}
	srv := redistest.Start(t, safeArgs...)
	rdb := setUser(t, newClient(t, srv.Addr), srv.Addr, acl...)
	cat := NewCatalog(rdb, "floe/v1/ids/")
	def := sequencer.Definition{}
	spec, err := def.Spec()
	if err != nil {
		t.Fatal(err)
	}
	reserved, err := id64.Twitter.Tick(time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}

	seq, err := cat.Create(ctxFor(t, opTimeout), "orders", spec)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	cfg := Config{IDs: 2, TTL: 5 * time.Second, Owner: "a"}
	src, err := cat.Source(ctxFor(t, opTimeout), seq, cfg)
	if err != nil {
		t.Fatalf("Source: %v", err)
	}
	l := mustClaim(t, src)
	mustReserve(t, l, reserved)
	gone := make(chan error, 1)
	go func() { gone <- cat.WaitGone(ctxFor(t, 30*time.Second), "orders", seq.Gen) }()

	if err := cat.Destroy(ctxFor(t, opTimeout), "orders"); err != nil {
		t.Fatalf("Destroy: %v", err)
	}
	workeridtest.WantLost(t, l, opTimeout)
	if err := <-gone; err != nil {
		t.Errorf("WaitGone: %v", err)
	}

	s, err := sequencer.Open(ctxFor(t, opTimeout), sequencer.Config{
		Name: "orders", Definition: def, Catalog: cat,
		Sources: func(seq workerid.Sequence) (workerid.Source, error) {
			return cat.Source(ctxFor(t, opTimeout), seq, cfg)
		},
		Policy: floe.Borrow, MaxAhead: 2 * time.Hour,
	})
	if err != nil {
		t.Fatalf("Open on the destroyed name: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	if s.Generation() == seq.Gen {
		t.Errorf("re-created generation %d, the destroyed one's", s.Generation())
	}
	if _, err := s.Wait(ctxFor(t, opTimeout), sequencer.Serving); err != nil {
		t.Fatalf("Wait: %v", err)
	}
	id, err := s.Next64()
	if err != nil {
		t.Fatalf("Next64: %v", err)
	}
	if tick := id64.Twitter.Parts(id).Tick; tick <= reserved {
		t.Errorf("the re-created generation issued tick %d, not above %d that the destroyed one reserved", tick, reserved)
	}
}

// A destroy refused at any one of its writes leaves a state from which no
// holder of the destroyed generation reserves above the retired tick that
// the next generation starts from, and a retry finishes it.
func TestDestroy_RefusedHalfway(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	for _, denied := range []string{"hset", "hdel", "del", "publish"} {
		t.Run(denied, func(t *testing.T) {
			prefix := freshPrefix()
			limited := NewCatalog(setUser(t, admin, srv.Addr, "deny-"+denied, "on", ">secret", "~*", "&*", "+@all", "-"+denied), prefix)
			cat := NewCatalog(newClient(t, srv.Addr), prefix)
			const first, second = 1000, 2000

			seq, err := cat.Create(ctxFor(t, opTimeout), "orders", "spec-a")
			if err != nil {
				t.Fatal(err)
			}
			src, err := cat.Source(ctxFor(t, opTimeout), seq, Config{IDs: 2, TTL: 5 * time.Second, Owner: "a"})
			if err != nil {
				t.Fatal(err)
			}
			l := mustClaim(t, src)
			mustReserve(t, l, first)

			if err := limited.Destroy(ctxFor(t, opTimeout), "orders"); err == nil {
				t.Fatalf("Destroy without %s succeeded", denied)
			}
			// The holder, cut off from what happened, reserves further.
			top := uint64(first)
			if err := l.Reserve(ctxFor(t, opTimeout), second); err == nil {
				top = second
			}
			if err := cat.Destroy(ctxFor(t, opTimeout), "orders"); err != nil && !errors.Is(err, workerid.ErrNotFound) {
				t.Fatalf("Destroy again: %v", err)
			}
			keys, err := admin.Keys(ctxFor(t, opTimeout), prefix+"seq/*").Result()
			if err != nil || len(keys) != 0 {
				t.Errorf("keys of the destroyed sequence left: %q, %v", keys, err)
			}
			again, err := cat.Create(ctxFor(t, opTimeout), "orders", "spec-a")
			if err != nil {
				t.Fatal(err)
			}
			if again.Gen == seq.Gen || again.Retired.Tick < top {
				t.Errorf("re-created: generation %d (was %d), retired tick %d; the old holder reserved up to %d",
					again.Gen, seq.Gen, again.Retired.Tick, top)
			}
		})
	}
}

// CheckACL, and so NewSource, refuses a user who may not run a command of
// the scripts, naming the command, the key or channel, and the rule.
func TestCheckACL(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	all := []string{"on", ">secret", "~floe/*", "&floe/*", "+@all"}
	tests := []struct {
		name    string
		acl     []string
		catalog bool
		want    []string // nil: permitted; else each is in the error
	}{
		{name: "all", acl: all, catalog: true},
		{name: "source without catalog commands", acl: []string{"on", ">secret", "~floe/*", "resetchannels", "-@all",
			"+eval", "+evalsha", "+info", "+config|get", "+get", "+set", "+del", "+exists", "+incr", "+pexpire"}},
		{name: "no publish", acl: append(slices.Clone(all), "-publish"), catalog: true,
			want: []string{`user "no-publish" may not run PUBLISH on channel floe/v1/ids/destroyed: add +publish and &floe/* to its ACL`}},
		{name: "no channels", acl: []string{"on", ">secret", "~floe/*", "resetchannels", "+@all"}, catalog: true,
			want: []string{"may not run PUBLISH on channel floe/v1/ids/destroyed", "may not run SUBSCRIBE on channel floe/v1/ids/destroyed: add +subscribe and &floe/*"}},
		{name: "other keys", acl: []string{"on", ">secret", "~other/*", "&*", "+@all"},
			want: []string{"may not run GET on key floe/v1/ids/workers/0: add +get and ~floe/* to its ACL", "may not run PEXPIRE on key"}},
		{name: "no hdel", acl: append(slices.Clone(all), "-hdel"), catalog: true, want: []string{"may not run HDEL on key floe/v1/ids/sequences: add +hdel and ~floe/* to its ACL"}},
		{name: "no eval", acl: append(slices.Clone(all), "-eval"), want: []string{"may not run EVAL", "add +eval"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rdb := setUser(t, admin, srv.Addr, append([]string{strings.ReplaceAll(tt.name, " ", "-")}, tt.acl...)...)
			err := CheckACL(ctxFor(t, opTimeout), rdb, "floe/v1/ids/", tt.catalog)
			if tt.want == nil {
				if err != nil {
					t.Errorf("CheckACL: %v, want nil", err)
				}
				return
			}
			var pe *PermissionError
			if !errors.As(err, &pe) || !errors.Is(err, ErrPermission) {
				t.Fatalf("CheckACL: %v, want a *PermissionError", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("CheckACL: %v\nwant it to contain %q", err, w)
				}
			}
			if !tt.catalog {
				_, err := NewSource(ctxFor(t, opTimeout), rdb, Config{Prefix: "floe/v1/ids/", IDs: 1, Owner: "a"})
				if !errors.Is(err, ErrPermission) {
					t.Errorf("NewSource: %v, want ErrPermission", err)
				}
				return
			}
			cat := NewCatalog(admin, "floe/v1/ids/")
			seq, err := cat.Create(ctxFor(t, opTimeout), "s-"+strconv.Itoa(len(tt.name)), "spec")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewCatalog(rdb, "floe/v1/ids/").Source(ctxFor(t, opTimeout), seq, Config{IDs: 1, Owner: "a"}); !errors.Is(err, ErrPermission) {
				t.Errorf("Catalog.Source: %v, want ErrPermission", err)
			}
		})
	}
}

// scriptCommands names every command a script runs.
func TestScriptCommands_CoverScripts(t *testing.T) {
	call := regexp.MustCompile(`redis\.call\('(\w+)'`)
	var have []string
	for _, c := range scriptCommands("p/", &seqRef{hash: "p/h", retired: "p/r", channel: "p/c"}) {
		have = append(have, c.args[0])
	}
	for _, src := range []string{claimSource, renewSource, reserveSource, releaseSource, dropSource, createSource, destroySource, aclSource} {
		for _, m := range call.FindAllStringSubmatch(src, -1) {
			if cmd := strings.ToLower(m[1]); !slices.Contains(have, cmd) {
				t.Errorf("a script runs %s; scriptCommands does not check it", cmd)
			}
		}
	}
	for _, want := range []string{"evalsha", "eval", "hgetall", "subscribe"} {
		if !slices.Contains(have, want) {
			t.Errorf("scriptCommands does not check %s, which the Source or Catalog run", want)
		}
	}
}

// uncheckedSource returns a Source on rdb without NewSource's checks, to
// run the scripts as a user who may not run all of their commands.
func uncheckedSource(t *testing.T, rdb *goredis.Client, cfg Config) *Source {
	t.Helper()
	if err := cfg.setDefaults(); err != nil {
		t.Fatal(err)
	}
	return &Source{rdb: rdb, cfg: cfg, checked: cfg.Clock.Now()}
}

// A claim or release refused after its first write leaves the worker ID's
// reservation such that the next holder starts above every tick issued.
func TestClaimRelease_RefusedHalfway(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	const reserved, last = 1000, 900
	tests := []struct {
		name   string
		denied string
		// run claims, reserves and releases worker ID 0 with the sources
		// of the full and the limited user, and returns the highest tick
		// issued under it.
		run func(t *testing.T, full, limited *Source) uint64
	}{
		{name: "claim refused INCR of the fence", denied: "incr", run: func(t *testing.T, full, limited *Source) uint64 {
			l := mustClaim(t, full)
			mustReserve(t, l, reserved)
			if err := l.Release(ctxFor(t, opTimeout), last); err != nil {
				t.Fatal(err)
			}
			if _, err := limited.Claim(ctxFor(t, opTimeout)); err == nil {
				t.Fatal("Claim without INCR succeeded")
			}
			return last
		}},
		{name: "release refused DEL of the owner key", denied: "del", run: func(t *testing.T, full, limited *Source) uint64 {
			l := mustClaim(t, limited)
			mustReserve(t, l, reserved)
			if err := l.Release(ctxFor(t, opTimeout), last); err == nil {
				t.Fatal("Release without DEL succeeded")
			}
			return last
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{Prefix: freshPrefix(), IDs: 1, TTL: time.Second, Owner: "a"}
			limited := uncheckedSource(t, setUser(t, admin, srv.Addr, "deny-"+tt.denied, "on", ">secret", "~*", "&*", "+@all", "-"+tt.denied), cfg)
			full := newSource(t, srv.Addr, cfg)
			issued := tt.run(t, full, limited)
			// The next claim, once a key the refused script left expires.
			deadline := time.Now().Add(10 * time.Second)
			for {
				l, err := full.Claim(ctxFor(t, opTimeout))
				if err == nil {
					if l.Floor() < issued {
						t.Errorf("next holder's floor %d, below tick %d issued before", l.Floor(), issued)
					}
					break
				}
				if !errors.Is(err, workerid.ErrExhausted) || time.Now().After(deadline) {
					t.Fatalf("Claim: %v", err)
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// A create refused after it numbered the generation leaves no sequence,
// and the next create makes it.
func TestCreate_RefusedHalfway(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	admin := newClient(t, srv.Addr)
	prefix := freshPrefix()
	limited := NewCatalog(setUser(t, admin, srv.Addr, "deny-hset", "on", ">secret", "~*", "&*", "+@all", "-hset"), prefix)
	cat := NewCatalog(admin, prefix)
	if _, err := limited.Create(ctxFor(t, opTimeout), "orders", "spec-a"); err == nil {
		t.Fatal("Create without HSET succeeded")
	}
	if _, err := cat.Get(ctxFor(t, opTimeout), "orders"); !errors.Is(err, workerid.ErrNotFound) {
		t.Errorf("Get after a refused Create: %v, want ErrNotFound", err)
	}
	seq, err := cat.Create(ctxFor(t, opTimeout), "orders", "spec-a")
	if err != nil || seq.Spec != "spec-a" {
		t.Fatalf("Create after a refused one: %+v, %v", seq, err)
	}
}
