package workerid_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/floeid/floe/workerid"
)

// The SHA-256 of "secret" and of "other", as sha256sum prints them.
const (
	secretHash = "2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b"
	otherHash  = "d9298a10d1b0735837dc4bd85dac641b0f3cef27a47e5d53a54f2f3f5b2fcffa"
)

func TestHashToken(t *testing.T) {
	for _, tt := range []struct{ token, want string }{{"secret", secretHash}, {"other", otherHash}} {
		if got := workerid.HashToken([]byte(tt.token)).String(); got != tt.want {
			t.Errorf("HashToken(%q) = %s, want %s", tt.token, got, tt.want)
		}
	}
}

func TestParseTokenHash(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "lower case", in: secretHash, want: secretHash},
		{name: "upper case", in: strings.ToUpper(secretHash), want: secretHash},
		{name: "empty", in: "", wantErr: true},
		{name: "too short", in: secretHash[:62], wantErr: true},
		{name: "too long", in: secretHash + "00", wantErr: true},
		{name: "not hex", in: "zz" + secretHash[2:], wantErr: true},
		{name: "the token itself", in: "secret", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := workerid.ParseTokenHash(tt.in)
			if tt.wantErr {
				if !errors.Is(err, workerid.ErrTokenHash) {
					t.Fatalf("ParseTokenHash(%q) = %v, %v; want ErrTokenHash", tt.in, h, err)
				}
				return
			}
			if err != nil || h.String() != tt.want {
				t.Fatalf("ParseTokenHash(%q) = %v, %v; want %s", tt.in, h, err, tt.want)
			}
		})
	}
}

func TestTokens(t *testing.T) {
	secret, other := workerid.HashToken([]byte("secret")), workerid.HashToken([]byte("other"))
	third := workerid.HashToken([]byte("third"))
	tests := []struct {
		name      string
		tokens    workerid.Tokens
		wantLen   int
		wantText  string
		match     []workerid.TokenHash
		mismatch  []workerid.TokenHash
		equalsTo  workerid.Tokens
		differsTo workerid.Tokens
	}{
		{name: "none", tokens: workerid.Tokens{}, wantLen: 0, wantText: "", mismatch: []workerid.TokenHash{secret}, equalsTo: workerid.NewTokens(), differsTo: workerid.NewTokens(secret)},
		{name: "one", tokens: workerid.NewTokens(secret), wantLen: 1, wantText: secretHash, match: []workerid.TokenHash{secret}, mismatch: []workerid.TokenHash{other},
			equalsTo: workerid.NewTokens(secret, secret), differsTo: workerid.NewTokens(other)},
		{name: "two, sorted and without repeats", tokens: workerid.NewTokens(other, secret, other), wantLen: 2, wantText: secretHash + "," + otherHash,
			match: []workerid.TokenHash{secret, other}, mismatch: []workerid.TokenHash{third},
			equalsTo: workerid.NewTokens(secret, other), differsTo: workerid.NewTokens(secret, third)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tokens.Len(); got != tt.wantLen {
				t.Errorf("Len() = %d, want %d", got, tt.wantLen)
			}
			if got := tt.tokens.String(); got != tt.wantText {
				t.Errorf("String() = %q, want %q", got, tt.wantText)
			}
			for _, h := range tt.match {
				if !tt.tokens.Match(h) {
					t.Errorf("Match(%s) = false", h)
				}
			}
			for _, h := range tt.mismatch {
				if tt.tokens.Match(h) {
					t.Errorf("Match(%s) = true", h)
				}
			}
			if tt.tokens != tt.equalsTo {
				t.Errorf("%v != %v", tt.tokens, tt.equalsTo)
			}
			if tt.tokens == tt.differsTo {
				t.Errorf("%v == %v", tt.tokens, tt.differsTo)
			}
			back, err := workerid.ParseTokens(tt.tokens.String())
			if err != nil || back != tt.tokens {
				t.Errorf("ParseTokens(String()) = %v, %v; want %v", back, err, tt.tokens)
			}
			if got := workerid.NewTokens(tt.tokens.Hashes()...); got != tt.tokens {
				t.Errorf("NewTokens(Hashes()...) = %v, want %v", got, tt.tokens)
			}
		})
	}
}

func TestParseTokens_Refuses(t *testing.T) {
	for _, in := range []string{",", secretHash + ",", "," + secretHash, secretHash + " ", "secret", secretHash + ";" + otherHash} {
		if got, err := workerid.ParseTokens(in); !errors.Is(err, workerid.ErrTokenHash) {
			t.Errorf("ParseTokens(%q) = %v, %v; want ErrTokenHash", in, got, err)
		}
	}
}

func FuzzParseTokens(f *testing.F) {
	for _, s := range []string{"", secretHash, secretHash + "," + otherHash, otherHash + "," + secretHash + "," + otherHash, ",", "secret"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tokens, err := workerid.ParseTokens(s)
		if err != nil {
			if tokens != (workerid.Tokens{}) {
				t.Fatalf("ParseTokens(%q) = %v with error %v", s, tokens, err)
			}
			return
		}
		back, err := workerid.ParseTokens(tokens.String())
		if err != nil || back != tokens {
			t.Fatalf("ParseTokens(%q): round trip %v, %v; want %v", s, back, err, tokens)
		}
		for _, h := range tokens.Hashes() {
			if !tokens.Match(h) {
				t.Fatalf("ParseTokens(%q) does not match its own hash %s", s, h)
			}
		}
	})
}

// A catalog keeps the hashes of a sequence's tokens, never the tokens: a
// node matches the token of an auth frame by its hash.
func ExampleTokens() {
	tokens := workerid.NewTokens(workerid.HashToken([]byte("secret")))
	fmt.Println(tokens)
	fmt.Println(tokens.Match(workerid.HashToken([]byte("secret"))))
	fmt.Println(tokens.Match(workerid.HashToken([]byte("guess"))))
	// Output:
	// 2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b
	// true
	// false
}
