package redis

import (
	"errors"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
	goredis "github.com/redis/go-redis/v9"
)

// getOr returns the value of key, or "" when there is none.
func getOr(t *testing.T, rdb *goredis.Client, key string) string {
	t.Helper()
	v, err := rdb.Get(ctxFor(t, 5*time.Second), key).Result()
	if errors.Is(err, goredis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// setup sets the owner key to token (unless empty) and the reservation key
// to res (unless empty) under a fresh prefix, and returns both keys.
func setup(t *testing.T, rdb *goredis.Client, token, res string) (ownerKey, resKey string) {
	t.Helper()
	prefix := freshPrefix()
	ownerKey, resKey = prefix+"workers/0", prefix+"reserved/0"
	if token != "" {
		if err := rdb.Set(ctxFor(t, 5*time.Second), ownerKey, token, time.Minute).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if res != "" {
		if err := rdb.Set(ctxFor(t, 5*time.Second), resKey, res, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	return ownerKey, resKey
}

// reserve.lua compares ticks as decimal strings: Lua's doubles would round
// them above 2^53.
func TestScripts_Reserve(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, redistest.Start(t).Addr)
	tests := []struct {
		name      string
		token     string // in the owner key
		old       string // the reservation before, "" for none
		tick      string
		want      int64
		wantValue string
	}{
		{name: "first reservation", token: "t", tick: "5", want: 1, wantValue: "5:0:o"},
		{name: "one more digit", token: "t", old: "9:0:x", tick: "10", want: 1, wantValue: "10:0:o"},
		{name: "fewer digits is lower", token: "t", old: "10:0:x", tick: "9", want: 1, wantValue: "10:0:x"},
		{name: "same tick", token: "t", old: "10:3:x", tick: "10", want: 1, wantValue: "10:3:x"},
		{name: "lower, same length", token: "t", old: "20:0:x", tick: "19", want: 1, wantValue: "20:0:x"},
		{name: "one above 2^53", token: "t", old: "9007199254740992:0:x", tick: "9007199254740993", want: 1, wantValue: "9007199254740993:0:o"},
		{name: "one below, above 2^53", token: "t", old: "9007199254740993:0:x", tick: "9007199254740992", want: 1, wantValue: "9007199254740993:0:x"},
		{name: "top of uint64", token: "t", old: "18446744073709551614:0:x", tick: "18446744073709551615", want: 1, wantValue: "18446744073709551615:0:o"},
		{name: "below the top", token: "t", old: "18446744073709551615:0:x", tick: "18446744073709551614", want: 1, wantValue: "18446744073709551615:0:x"},
		{name: "another token", token: "u", old: "5:0:x", tick: "6", want: 0, wantValue: "5:0:x"},
		{name: "no owner key", old: "5:0:x", tick: "6", want: 0, wantValue: "5:0:x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner, res := setup(t, rdb, tt.token, tt.old)
			got, err := reserveScript().Run(ctxFor(t, 5*time.Second), rdb, []string{owner, res}, "t", tt.tick, "o", "", "", "").Int64()
			if err != nil || got != tt.want {
				t.Fatalf("reserve.lua = %d, %v; want %d", got, err, tt.want)
			}
			if got := getOr(t, rdb, res); got != tt.wantValue {
				t.Errorf("reservation = %q, want %q", got, tt.wantValue)
			}
		})
	}
}

// release.lua caps the last tick at R, comparing decimal strings, and
// deletes the owner key only when it holds the token.
func TestScripts_Release(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, redistest.Start(t).Addr)
	tests := []struct {
		name      string
		token     string
		old       string
		last      string
		want      int64
		wantValue string
	}{
		{name: "last below R", token: "t", old: "100:0:x", last: "99", want: 1, wantValue: "100:99:o"},
		{name: "last above R", token: "t", old: "100:0:x", last: "101", want: 1, wantValue: "100:100:o"},
		{name: "last with more digits than R", token: "t", old: "99:0:x", last: "100", want: 1, wantValue: "99:99:o"},
		{name: "last one below R above 2^53", token: "t", old: "9007199254740993:0:x", last: "9007199254740992", want: 1, wantValue: "9007199254740993:9007199254740992:o"},
		{name: "last one above R above 2^53", token: "t", old: "9007199254740992:0:x", last: "9007199254740993", want: 1, wantValue: "9007199254740992:9007199254740992:o"},
		{name: "no last tick", token: "t", old: "100:0:x", last: "0", want: 1, wantValue: "100:0:x"},
		{name: "no reservation", token: "t", last: "5", want: 1, wantValue: "0:0:o"},
		{name: "another token", token: "u", old: "100:0:x", last: "50", want: 0, wantValue: "100:0:x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			owner, res := setup(t, rdb, tt.token, tt.old)
			got, err := releaseScript().Run(ctxFor(t, 5*time.Second), rdb, []string{owner, res}, "t", tt.last, "o").Int64()
			if err != nil || got != tt.want {
				t.Fatalf("release.lua = %d, %v; want %d", got, err, tt.want)
			}
			if got := getOr(t, rdb, res); got != tt.wantValue {
				t.Errorf("reservation = %q, want %q", got, tt.wantValue)
			}
			wantOwner := ""
			if tt.want == 0 {
				wantOwner = tt.token
			}
			if got := getOr(t, rdb, owner); got != wantOwner {
				t.Errorf("owner key = %q, want %q", got, wantOwner)
			}
		})
	}
}

// A reservation key that is not "R:last:owner" fails the claim with
// ErrBadReservation and leaves the worker ID free; one the scripts cannot
// read ends a holder's lease at its next Reserve, and fails its Release.
func TestScripts_BadReservation(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, safeArgs...)
	rdb := newClient(t, srv.Addr)
	tests := []struct {
		value      string
		luaRejects bool // no R and last tick the scripts can read
	}{
		{"garbage", true},
		{"5:x:o", true},
		{"-5:0:o", true},
		{"5:0", true},
		{"0100:0:o", false},
		{"5:9:o", false},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			prefix := freshPrefix()
			owner, res := prefix+"workers/0", prefix+"reserved/0"
			if err := rdb.Set(ctxFor(t, 5*time.Second), res, tt.value, 0).Err(); err != nil {
				t.Fatal(err)
			}
			src := newSource(t, srv.Addr, Config{Prefix: prefix, IDs: 1, TTL: 5 * time.Second, Owner: "o"})
			l, err := src.Claim(ctxFor(t, 5*time.Second))
			if !errors.Is(err, ErrBadReservation) {
				t.Errorf("Claim over reservation %q: %v, want ErrBadReservation", tt.value, err)
			}
			if l != nil {
				t.Fatalf("Claim over reservation %q returned worker ID %d, floor %d", tt.value, l.ID(), l.Floor())
			}
			if got := getOr(t, rdb, owner); got != "" {
				t.Errorf("owner key after a refused claim = %q, want none", got)
			}
			if !tt.luaRejects {
				return
			}

			// The reservation key of a holder is overwritten.
			if err := rdb.Del(ctxFor(t, 5*time.Second), res).Err(); err != nil {
				t.Fatal(err)
			}
			a := mustClaim(t, src)
			mustReserve(t, a, 10)
			b := mustClaim(t, newSource(t, srv.Addr, Config{Prefix: freshPrefix(), IDs: 1, TTL: 5 * time.Second, Owner: "o"}))
			mustReserve(t, b, 10)
			for _, l := range []workerid.Lease{a, b} {
				if err := rdb.Set(ctxFor(t, 5*time.Second), l.(*lease).resKey, tt.value, 0).Err(); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Reserve(ctxFor(t, 5*time.Second), 20); !errors.Is(err, ErrBadReservation) {
				t.Errorf("Reserve over reservation %q: %v, want ErrBadReservation", tt.value, err)
			}
			workeridtest.WantLost(t, a, opTimeout)
			if err := b.Release(ctxFor(t, 5*time.Second), 5); !errors.Is(err, ErrBadReservation) {
				t.Errorf("Release(5) over reservation %q: %v, want ErrBadReservation", tt.value, err)
			}
		})
	}
}
