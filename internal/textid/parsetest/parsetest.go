// Package parsetest checks, in the tests of id64, id80 and id96, the
// errors of their decoders: that an error is a *floe.ParseError of the
// format that says what a reading of the input one byte at a time says
// (the length, the first character rejected, where JSON stops), and that
// each decoder gives a table of inputs the messages it wants.
package parsetest

import (
	"bytes"
	"database/sql"
	"encoding"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floeid/floe"
)

// keep is how much of the input a *floe.ParseError holds as its Input.
const keep = 64

// Decoders are a format's decoders by name, for tables of their errors.
// Each takes its input as any: a string for "parse", "text" and "json",
// the database value for "scan", a []byte for "bytes".
type Decoders map[string]func(in any) error

// NewDecoders returns the decoders of the ID type of a format whose Parse is
// parse and whose FromBytes is fromBytes: "parse", "text" (UnmarshalText),
// "json" (UnmarshalJSON), "scan" (Scan) and "bytes", each into a new ID.
func NewDecoders[ID any, P interface {
	*ID
	encoding.TextUnmarshaler
	json.Unmarshaler
	sql.Scanner
}](parse func(string) (ID, error), fromBytes func([]byte) (ID, error)) Decoders {
	return Decoders{
		"parse": func(in any) error { _, err := parse(in.(string)); return err },
		"text":  func(in any) error { return P(new(ID)).UnmarshalText([]byte(in.(string))) },
		"json":  func(in any) error { return P(new(ID)).UnmarshalJSON([]byte(in.(string))) },
		"scan":  func(in any) error { return P(new(ID)).Scan(in) },
		"bytes": func(in any) error { _, err := fromBytes(in.([]byte)); return err },
	}
}

// Case is a row of a table of decoders' messages: each decoder named in
// Decoders, given In, returns an error whose text is Want.
type Case struct {
	Name     string
	Decoders []string
	In       any
	Want     string // the error's text; "" for none
}

// RunMessages runs, for each case and each decoder it names, a subtest
// "Name decoder" that fails unless the decoder, given In, returns an error
// whose text is Want, or no error when Want is "". It takes a *testing.T,
// not a testing.TB, for the subtests.
func RunMessages(t *testing.T, decoders Decoders, cases []Case) {
	t.Helper()
	for _, tc := range cases {
		for _, name := range tc.Decoders {
			t.Run(tc.Name+" "+name, func(t *testing.T) {
				decode, ok := decoders[name]
				if !ok {
					t.Fatalf("no decoder %q", name)
				}
				got := ""
				if err := decode(tc.In); err != nil {
					got = err.Error()
				}
				if got != tc.Want {
					t.Errorf("error %q, want %q", got, tc.Want)
				}
			})
		}
	}
}

// Failure fails t unless err is a *floe.ParseError of format wrapping one
// of reasons, with Input the first 64 bytes of input, and returns it.
func Failure[T string | []byte](t testing.TB, err error, format string, input T, reasons ...error) *floe.ParseError {
	t.Helper()
	var pe *floe.ParseError
	if !errors.As(err, &pe) || pe.Format != format {
		t.Fatalf("error %v (%T), want an %s *floe.ParseError", err, err, format)
	}
	if !slices.ContainsFunc(reasons, func(r error) bool { return errors.Is(err, r) }) {
		t.Fatalf("error %v wraps none of %v", err, reasons)
	}
	if want := string(input[:min(len(input), keep)]); pe.Input != want {
		t.Fatalf("error %v has Input %q, want %q", err, pe.Input, want)
	}
	return pe
}

// LengthFailure fails t unless err is a *floe.ParseError of format for
// input wrapping floe.ErrInvalidLength, with Length length, no Offset (-1)
// and Want want.
func LengthFailure[T string | []byte](t testing.TB, err error, format string, input T, length int, want string) {
	t.Helper()
	pe := Failure(t, err, format, input, floe.ErrInvalidLength)
	if pe.Length != length || pe.Offset != -1 || pe.Want != want {
		t.Fatalf("error %v for %q: %+v, want length %d, Offset -1, Want %q", err, input, *pe, length, want)
	}
}

// CharFailure fails t unless err is a *floe.ParseError of format for input
// wrapping floe.ErrInvalidCharacter, with Offset offset, Char char, no
// Length (-1) and Want want.
func CharFailure[T string | []byte](t testing.TB, err error, format string, input T, offset int, char, want string) {
	t.Helper()
	pe := Failure(t, err, format, input, floe.ErrInvalidCharacter)
	if pe.Offset != offset || pe.Char != char || pe.Length != -1 || pe.Want != want {
		t.Fatalf("error %v for %q: %+v, want the character %q at offset %d, Want %q", err, input, *pe, char, offset, want)
	}
}

// Text describes a format's text form, for TextFailure.
type Text struct {
	Format string            // the format's name, as ParseError.Format holds it
	Len    int               // the length of the text form
	In     func(c byte) bool // whether c is in the alphabet, which is ASCII
	Want   string            // what the format wants for a character, "2-9 a-x"
}

// Outside returns the offset of the first byte of s outside f's alphabet,
// or -1 when there is none.
func (f Text) Outside(s []byte) int {
	return slices.IndexFunc(s, func(c byte) bool { return !f.In(c) })
}

// TextFailure fails t unless err explains, as a reading of text one byte at
// a time does, why text is not the text form f describes: its length, which
// is not f.Len, with Want lengths; else the first byte outside the alphabet.
func TextFailure(t testing.TB, err error, f Text, text []byte, lengths string) {
	t.Helper()
	if len(text) != f.Len {
		LengthFailure(t, err, f.Format, text, len(text), lengths)
		return
	}
	i := f.Outside(text)
	if i < 0 {
		t.Fatalf("error %v for %q, which is %d characters of the alphabet", err, text, f.Len)
	}
	CharFailure(t, err, f.Format, text, i, CharAt(text, i), f.Want)
}

// JSONSyntaxFailure fails t unless err is a *floe.ParseError of format for
// b wrapping floe.ErrInvalidCharacter, with Want want, that points at the
// first byte of b that no JSON string or null can have there, or at its end
// when b stops short.
func JSONSyntaxFailure(t testing.TB, err error, format string, b []byte, want string) {
	t.Helper()
	pe := Failure(t, err, format, b, floe.ErrInvalidCharacter)
	if pe.Offset < 0 || pe.Offset > len(b) || pe.Char != CharAt(b, pe.Offset) || pe.Length != -1 || pe.Want != want {
		t.Fatalf("error %v for %q: %+v, want the offset where it stops being JSON", err, b, *pe)
	}
	if pe.Offset > 0 && !jsonStart(b[:pe.Offset]) {
		t.Fatalf("error %v for %q: %q before the offset starts no JSON string or null", err, b, b[:pe.Offset])
	}
	if pe.Offset < len(b) && jsonStart(b[:pe.Offset+1]) {
		t.Fatalf("error %v for %q: %q, to the offset, starts a JSON string or null", err, b, b[:pe.Offset+1])
	}
}

// jsonStart reports whether p is the start of null or of a JSON string:
// whether one of the endings that close a string, an escape or a \u escape
// makes it a whole one.
func jsonStart(p []byte) bool {
	if strings.HasPrefix("null", string(p)) {
		return true
	}
	for _, end := range []string{"", `"`, `n"`, `0"`, `00"`, `000"`, `0000"`} {
		q := append(bytes.Clone(p), end...)
		var s string
		if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' && json.Unmarshal(q, &s) == nil {
			return true
		}
	}
	return false
}

// CharAt returns the character of s at byte i: its UTF-8 bytes, or the one
// byte there when it does not start valid UTF-8; "" when i is outside s, as
// at its end.
func CharAt[T string | []byte](s T, i int) string {
	if i < 0 || i >= len(s) {
		return ""
	}
	_, n := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
	return string(s[i : i+n])
}
