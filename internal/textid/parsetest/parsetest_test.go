package parsetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/floeid/floe"
)

// recorder is a testing.TB that records a check's failure instead of
// failing the test. Fatalf ends the check, as it would end a test.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	panic(r)
}

// failureOf runs check with a recorder and returns how it failed, "" when it
// passed.
func failureOf(t *testing.T, check func(tb testing.TB)) string {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil && p != r {
				panic(p)
			}
		}()
		check(r)
	}()
	return r.failure
}

// id80Text is id80's text form, as its tests describe it.
var id80Text = Text{
	Format: "id80",
	Len:    16,
	In:     func(c byte) bool { return strings.IndexByte("23456789abcdefghijklmnopqrstuvwx", c) >= 0 },
	Want:   "2-9 a-x",
}

// lengthError and charError return the errors id80 gives for input.
func lengthError(input string, length int, want string) *floe.ParseError {
	return &floe.ParseError{Format: "id80", Input: input[:min(len(input), 64)], Err: floe.ErrInvalidLength, Offset: -1, Length: length, Want: want}
}

func charError(input string, offset int, char, want string) *floe.ParseError {
	return &floe.ParseError{Format: "id80", Input: input[:min(len(input), 64)], Err: floe.ErrInvalidCharacter, Offset: offset, Char: char, Length: -1, Want: want}
}

// with returns e changed by f, for a wrong error.
func with(e *floe.ParseError, f func(e *floe.ParseError)) *floe.ParseError {
	f(e)
	return e
}

func TestChecks(t *testing.T) {
	long := strings.Repeat("2", 100)
	bang := "6ncg4s4c27a2422!"
	const lengths = "16 characters of 2-9 a-x"
	tests := []struct {
		name  string
		check func(tb testing.TB)
		want  string // in the failure; "" for none
	}{
		{"failure passes", func(tb testing.TB) {
			Failure(tb, fmt.Errorf("wrapped: %w", lengthError("abc", 3, lengths)), "id80", "abc", floe.ErrOutOfRange, floe.ErrInvalidLength)
		}, ""},
		{"failure cuts the input", func(tb testing.TB) { Failure(tb, lengthError(long, 100, lengths), "id80", long, floe.ErrInvalidLength) }, ""},
		{"not a parse error", func(tb testing.TB) { Failure(tb, floe.ErrInvalidLength, "id80", "abc", floe.ErrInvalidLength) },
			"want an id80 *floe.ParseError"},
		{"no error", func(tb testing.TB) { Failure(tb, nil, "id80", "abc", floe.ErrInvalidLength) }, "want an id80 *floe.ParseError"},
		{"wrong format", func(tb testing.TB) {
			Failure(tb, with(lengthError("abc", 3, lengths), func(e *floe.ParseError) { e.Format = "id96" }), "id80", "abc", floe.ErrInvalidLength)
		}, "want an id80 *floe.ParseError"},
		{"wrong reason", func(tb testing.TB) {
			Failure(tb, lengthError("abc", 3, lengths), "id80", "abc", floe.ErrInvalidCharacter)
		},
			"wraps none of"},
		{"no reason", func(tb testing.TB) { Failure(tb, lengthError("abc", 3, lengths), "id80", []byte("abc")) }, "wraps none of"},
		{"wrong input", func(tb testing.TB) { Failure(tb, lengthError("abc", 3, lengths), "id80", "abd", floe.ErrInvalidLength) },
			`has Input "abc", want "abd"`},
		{"input not cut", func(tb testing.TB) {
			Failure(tb, with(lengthError(long, 100, lengths), func(e *floe.ParseError) { e.Input = long }), "id80", long, floe.ErrInvalidLength)
		}, "has Input"},

		{"length passes", func(tb testing.TB) { LengthFailure(tb, lengthError("abc", 3, lengths), "id80", "abc", 3, lengths) }, ""},
		{"wrong length", func(tb testing.TB) { LengthFailure(tb, lengthError("abc", 4, lengths), "id80", "abc", 3, lengths) }, "want length 3"},
		{"length with an offset", func(tb testing.TB) {
			LengthFailure(tb, with(lengthError("abc", 3, lengths), func(e *floe.ParseError) { e.Offset = 0 }), "id80", "abc", 3, lengths)
		}, "want length 3"},
		{"length with a wrong want", func(tb testing.TB) { LengthFailure(tb, lengthError("abc", 3, "16"), "id80", "abc", 3, lengths) }, "want length 3"},
		{"length of a character error", func(tb testing.TB) { LengthFailure(tb, charError("abc", 0, "a", "2-9 a-x"), "id80", "abc", 3, lengths) },
			"wraps none of"},

		{"character passes", func(tb testing.TB) {
			CharFailure(tb, charError(bang, 15, "!", "2-9 a-x"), "id80", bang, 15, "!", "2-9 a-x")
		}, ""},
		{"wrong offset", func(tb testing.TB) {
			CharFailure(tb, charError(bang, 14, "!", "2-9 a-x"), "id80", bang, 15, "!", "2-9 a-x")
		},
			`want the character "!" at offset 15`},
		{"wrong character", func(tb testing.TB) {
			CharFailure(tb, charError(bang, 15, "2", "2-9 a-x"), "id80", bang, 15, "!", "2-9 a-x")
		},
			`want the character "!" at offset 15`},
		{"character with a length", func(tb testing.TB) {
			CharFailure(tb, with(charError(bang, 15, "!", "2-9 a-x"), func(e *floe.ParseError) { e.Length = 16 }), "id80", bang, 15, "!", "2-9 a-x")
		}, `want the character "!" at offset 15`},
		{"character with a wrong want", func(tb testing.TB) {
			CharFailure(tb, charError(bang, 15, "!", "0-9"), "id80", bang, 15, "!", "2-9 a-x")
		},
			`want the character "!" at offset 15`},

		{"text length passes", func(tb testing.TB) { TextFailure(tb, lengthError("abc", 3, lengths), id80Text, []byte("abc"), lengths) }, ""},
		{"text character passes", func(tb testing.TB) {
			TextFailure(tb, charError(bang, 15, "!", "2-9 a-x"), id80Text, []byte(bang), lengths)
		}, ""},
		{"text not utf-8", func(tb testing.TB) {
			TextFailure(tb, charError("6ncg\xffs4c27a24223", 4, "\xff", "2-9 a-x"), id80Text, []byte("6ncg\xffs4c27a24223"), lengths)
		}, ""},
		{"text length with the wrong lengths", func(tb testing.TB) {
			TextFailure(tb, lengthError("abc", 3, lengths), id80Text, []byte("abc"), lengths+" or 10 bytes")
		}, "want length 3"},
		{"text of the right length but a length error", func(tb testing.TB) {
			TextFailure(tb, lengthError(bang, 16, lengths), id80Text, []byte(bang), lengths)
		}, "wraps none of"},
		{"text character at the wrong offset", func(tb testing.TB) {
			TextFailure(tb, charError("6ncg!s4c27a2422!", 15, "!", "2-9 a-x"), id80Text, []byte("6ncg!s4c27a2422!"), lengths)
		}, `want the character "!" at offset 4`},
		{"text upper case", func(tb testing.TB) {
			TextFailure(tb, charError("6nCg4s4c27a24223", 2, "C", "0-9"), id80Text, []byte("6nCg4s4c27a24223"), lengths)
		}, `Want "2-9 a-x"`},
		{"valid text", func(tb testing.TB) {
			TextFailure(tb, charError("6ncg4s4c27a24223", 0, "6", "2-9 a-x"), id80Text, []byte("6ncg4s4c27a24223"), lengths)
		}, "which is 16 characters of the alphabet"},

		{"json passes", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError("nul", 3, "", "a JSON string or null"), "id80", []byte("nul"), "a JSON string or null")
		}, ""},
		{"json bad escape passes", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError(`"\x"`, 2, "x", "a JSON string or null"), "id80", []byte(`"\x"`), "a JSON string or null")
		}, ""},
		{"json offset too early", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError("nul", 2, "l", "a JSON string or null"), "id80", []byte("nul"), "a JSON string or null")
		}, `"nul", to the offset, starts a JSON string or null`},
		{"json offset too late", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError(`"\x"`, 3, `"`, "a JSON string or null"), "id80", []byte(`"\x"`), "a JSON string or null")
		}, `before the offset starts no JSON string or null`},
		{"json offset past the end", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError("nul", 4, "", "a JSON string or null"), "id80", []byte("nul"), "a JSON string or null")
		}, "want the offset where it stops being JSON"},
		{"json wrong character", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError("NULL", 0, "U", "a JSON string or null"), "id80", []byte("NULL"), "a JSON string or null")
		}, "want the offset where it stops being JSON"},
		{"json wrong want", func(tb testing.TB) {
			JSONSyntaxFailure(tb, charError("NULL", 0, "N", "2-9 a-x"), "id80", []byte("NULL"), "a JSON string or null")
		}, "want the offset where it stops being JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := failureOf(t, tc.check)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("failure %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCharAt(t *testing.T) {
	tests := []struct {
		name string
		s    string
		i    int
		want string
	}{
		{"ascii", "ab!", 2, "!"},
		{"two-byte rune", "aéb", 1, "é"},
		{"inside a rune", "aéb", 2, "\xa9"},
		{"not utf-8", "a\xff", 1, "\xff"},
		{"rune cut short", "a\xc3", 1, "\xc3"},
		{"end", "ab", 2, ""},
		{"before the start", "ab", -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := CharAt(tc.s, tc.i); got != tc.want {
				t.Errorf("CharAt(%q, %d) = %q, want %q", tc.s, tc.i, got, tc.want)
			}
			if got := CharAt([]byte(tc.s), tc.i); got != tc.want {
				t.Errorf("CharAt([]byte(%q), %d) = %q, want %q", tc.s, tc.i, got, tc.want)
			}
		})
	}
}

func TestJSONStart(t *testing.T) {
	tests := []struct {
		p    string
		want bool
	}{
		{"", true},
		{"n", true},
		{"null", true},
		{"nulll", false},
		{`"`, true},
		{`"ab`, true},
		{`"ab"`, true},
		{`"\`, true},
		{`"\u00`, true},
		{`"\x`, false},
		{`"\u00g`, false},
		{"N", false},
		{"1", false},
	}
	for _, tc := range tests {
		if got := jsonStart([]byte(tc.p)); got != tc.want {
			t.Errorf("jsonStart(%q) = %v, want %v", tc.p, got, tc.want)
		}
	}
}
