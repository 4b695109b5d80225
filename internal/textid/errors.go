package textid

import (
	"unicode/utf8"

	"github.com/floeid/floe"
)

// keep is how much of the input a *floe.ParseError holds, as
// floe.NewParseError keeps it; cutting before the copy keeps huge inputs as
// cheap to report as small ones.
const keep = 64

// Error returns a *floe.ParseError of format for input wrapping reason, a
// floe sentinel; want says what the format accepts.
func Error[T string | []byte](format string, input T, reason error, want string) *floe.ParseError {
	e := floe.NewParseError(format, cut(input), reason)
	e.Want = want
	return e
}

// CharError returns a *floe.ParseError of format for input wrapping
// floe.ErrInvalidCharacter: the byte of input at offset is the first the
// format rejects, or, when offset is len(input), the input ends too early.
// want says what the format accepts there.
func CharError[T string | []byte](format string, input T, offset int, want string) *floe.ParseError {
	e := Error(format, input, floe.ErrInvalidCharacter, want)
	e.Offset = offset
	e.Char = string(charAt(input, offset))
	return e
}

// LengthError returns a *floe.ParseError of format for input wrapping
// floe.ErrInvalidLength: length is the length the format measured, of input
// or of the text in it that the format reads. want says what lengths the
// format accepts.
func LengthError[T string | []byte](format string, input T, length int, want string) *floe.ParseError {
	e := Error(format, input, floe.ErrInvalidLength, want)
	e.Length = length
	return e
}

// cut returns the bytes of input that a *floe.ParseError keeps.
func cut[T string | []byte](input T) []byte {
	if len(input) > keep {
		input = input[:keep]
	}
	return []byte(input)
}

// charAt returns the character of s at offset i: its UTF-8 bytes, or the
// one byte there when it does not start valid UTF-8. It is empty when i is
// outside s.
func charAt[T string | []byte](s T, i int) T {
	if i < 0 || i >= len(s) {
		return s[:0]
	}
	s = s[i:min(len(s), i+utf8.UTFMax)]
	_, size := utf8.DecodeRuneInString(string(s)) // 1 for a byte that starts no rune
	return s[:size]
}

// InString returns e, an error about the text that starts at byte start of
// the contents of the JSON string b, as an error about b: its Input is b,
// and its Offset counts in b, where the character it names is written (as
// itself or as an escape sequence). Its Length still measures the text.
func InString(e *floe.ParseError, b []byte, start int) *floe.ParseError {
	e.Input = string(cut(b))
	if e.Offset >= 0 {
		e.Offset = StringOffset(b, start+e.Offset)
	}
	return e
}

// Ranges describes the characters of alphabet, which must be in ASCII
// order, as errors name them: runs of consecutive characters as first-last,
// the others alone, separated by spaces ("2-9 a-x", ". 0-9 A-Z _ a-z").
func Ranges(alphabet string) string {
	var b []byte
	for i := 0; i < len(alphabet); {
		j := i
		for j+1 < len(alphabet) && alphabet[j+1] == alphabet[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, alphabet[i])
		if j > i {
			b = append(b, '-', alphabet[j])
		}
		i = j + 1
	}
	return string(b)
}
