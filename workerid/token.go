package workerid

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
)

// TokenHash is the SHA-256 of a token that selects a sequence on a binary
// connection (the auth frame) or authorizes HTTP requests for it. A
// catalog keeps only hashes, never a token.
type TokenHash [sha256.Size]byte

// HashToken returns the TokenHash of token.
func HashToken(token []byte) TokenHash { return sha256.Sum256(token) }

// String returns the hash in lower-case hex, 64 digits.
func (h TokenHash) String() string { return hex.EncodeToString(h[:]) }

// ErrTokenHash is a token hash that is not 64 hex digits.
var ErrTokenHash = errors.New("floe: a token hash is the SHA-256 of the token in 64 hex digits")

// ParseTokenHash parses a hash as String writes it (either case).
func ParseTokenHash(s string) (TokenHash, error) {
	var h TokenHash
	if len(s) != 2*len(h) {
		return h, ErrTokenHash
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, ErrTokenHash
	}
	return h, nil
}

// Tokens is a set of token hashes. Two Tokens compare equal with == when
// they hold the same hashes; the zero Tokens is the empty set.
type Tokens struct {
	b string // the hashes, sorted and without repeats, concatenated
}

// NewTokens returns the set of hashes.
func NewTokens(hashes ...TokenHash) Tokens {
	hs := slices.Clone(hashes)
	slices.SortFunc(hs, func(a, b TokenHash) int { return strings.Compare(string(a[:]), string(b[:])) })
	hs = slices.Compact(hs)
	var sb strings.Builder
	for _, h := range hs {
		sb.Write(h[:])
	}
	return Tokens{sb.String()}
}

// Len returns the number of hashes.
func (t Tokens) Len() int { return len(t.b) / sha256.Size }

// Hashes returns the hashes, sorted.
func (t Tokens) Hashes() []TokenHash {
	hs := make([]TokenHash, t.Len())
	for i := range hs {
		copy(hs[i][:], t.b[i*sha256.Size:])
	}
	return hs
}

// Match reports whether h is in the set, comparing it with every hash in
// constant time.
func (t Tokens) Match(h TokenHash) bool {
	found := 0
	for i := 0; i < len(t.b); i += sha256.Size {
		found |= subtle.ConstantTimeCompare([]byte(t.b[i:i+sha256.Size]), h[:])
	}
	return found == 1
}

// String returns the hashes in hex, sorted, separated by commas; "" for
// none. ParseTokens reads it.
func (t Tokens) String() string {
	var sb strings.Builder
	for i, h := range t.Hashes() {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(h.String())
	}
	return sb.String()
}

// ParseTokens parses a set as String writes it; "" is the empty set.
func ParseTokens(s string) (Tokens, error) {
	if s == "" {
		return Tokens{}, nil
	}
	var hs []TokenHash
	for item := range strings.SplitSeq(s, ",") {
		h, err := ParseTokenHash(item)
		if err != nil {
			return Tokens{}, err
		}
		hs = append(hs, h)
	}
	return NewTokens(hs...), nil
}
