package kube

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
)

func TestNewSource_Config(t *testing.T) {
	api := newFakeAPI()
	ok := Config{Namespace: "floe", Prefix: "floe-prod-", IDs: 4}
	tests := []struct {
		name   string
		cli    *fakeAPI
		change func(*Config)
		want   error
	}{
		{"valid", api, func(*Config) {}, nil},
		{"no client", nil, func(*Config) {}, ErrNoClient},
		{"no namespace", api, func(c *Config) { c.Namespace = "" }, ErrNamespace},
		{"namespace not a DNS label", api, func(c *Config) { c.Namespace = "Floe" }, ErrNamespace},
		{"no prefix", api, func(c *Config) { c.Prefix = "" }, ErrPrefix},
		{"prefix upper case", api, func(c *Config) { c.Prefix = "Floe-" }, ErrPrefix},
		{"prefix with a slash", api, func(c *Config) { c.Prefix = "floe/" }, ErrPrefix},
		{"prefix too long", api, func(c *Config) { c.Prefix = strings.Repeat("a", 252) + "-" }, ErrPrefix},
		{"prefix just fits", api, func(c *Config) { c.Prefix = strings.Repeat("a", 251) + "-"; c.IDs = 10 }, nil},
		{"prefix too long for the last ID", api, func(c *Config) { c.Prefix = strings.Repeat("a", 251) + "-"; c.IDs = 11 }, ErrPrefix},
		{"no IDs", api, func(c *Config) { c.IDs = 0 }, ErrIDs},
		{"TTL below a second", api, func(c *Config) { c.TTL = 999 * time.Millisecond }, ErrTTL},
		{"TTL above int32 seconds", api, func(c *Config) { c.TTL = time.Duration(1<<31) * time.Second }, ErrTTL},
		{"negative request timeout", api, func(c *Config) { c.RequestTimeout = -1 }, ErrRequestTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.change(&cfg)
			var cli LeasesGetter
			if tt.cli != nil {
				cli = tt.cli
			}
			_, err := NewSource(cli, cfg)
			if got := err; !errors.Is(got, tt.want) || (tt.want == nil) != (got == nil) {
				t.Fatalf("NewSource(%+v) = %v, want %v", cfg, got, tt.want)
			}
		})
	}
}

func TestNewSource_Defaults(t *testing.T) {
	tests := []struct {
		name                   string
		ttl, timeout           time.Duration
		wantTTL, wantTimeout   time.Duration
		wantRenew, wantAttempt time.Duration
	}{
		{"zero", 0, 0, 10 * time.Second, 10 * time.Second / 3, 10 * time.Second / 3, 10 * time.Second / 6},
		{"rounded up", 1500 * time.Millisecond, 0, 2 * time.Second, 2 * time.Second / 3, 2 * time.Second / 3, 2 * time.Second / 6},
		{"short timeout", 6 * time.Second, 200 * time.Millisecond, 6 * time.Second, 200 * time.Millisecond, 2 * time.Second, 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSource(newFakeAPI(), Config{Namespace: "ns", Prefix: "p-", IDs: 1, TTL: tt.ttl, RequestTimeout: tt.timeout, Owner: "a"})
			if err != nil {
				t.Fatal(err)
			}
			got := []time.Duration{s.ttl, s.cfg.RequestTimeout, s.renew, s.attempt}
			want := []time.Duration{tt.wantTTL, tt.wantTimeout, tt.wantRenew, tt.wantAttempt}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ttl, timeout, renew, attempt = %v, want %v", got, want)
			}
		})
	}
}

func TestObserve(t *testing.T) {
	clock := floetest.NewClock(time.Unix(1000, 0))
	seen := make(map[string]observation)
	steps := []struct {
		name string
		step time.Duration
		rv   string
		want time.Duration
	}{
		{"first sight", 0, "1", 0},
		{"unchanged", 3 * time.Second, "1", 3 * time.Second},
		{"unchanged longer", 8 * time.Second, "1", 11 * time.Second},
		{"changed restarts", time.Second, "2", 0},
		{"unchanged again", 2 * time.Second, "2", 2 * time.Second},
		{"clock stepped back restarts", -time.Minute, "2", 0},
		{"after the step", time.Second, "2", time.Second},
	}
	for _, st := range steps {
		clock.Step(st.step)
		if got := observe(seen, "l", st.rv, clock.Now()); got != st.want {
			t.Errorf("%s: observe = %v, want %v", st.name, got, st.want)
		}
	}
}
