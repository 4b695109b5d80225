package floe

import (
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// Sentinel errors. Generators and parsers wrap them in the typed errors
// below, so callers match with errors.Is and read details with errors.As.
var (
	// ErrClockBackwards: the clock reads behind the last tick issued, and the
	// policy refused to issue (Fail) or waited past its bound (Wait, Borrow).
	ErrClockBackwards = errors.New("floe: clock is behind the last issued tick")
	// ErrCeiling: the next tick lies above the reservation ceiling; the
	// owner of the generator has not extended its reservation in time.
	ErrCeiling = errors.New("floe: reservation ceiling reached")
	// ErrTimeExhausted: the clock has passed the last tick the layout's time
	// field can hold.
	ErrTimeExhausted = errors.New("floe: layout time exhausted")
	// ErrUnknownPolicy: a policy name or number that is not a Policy.
	ErrUnknownPolicy = errors.New("floe: unknown clock policy")
	// ErrPolicyUnsupported: the format cannot apply the policy (TickTock
	// needs a tick-tock bit).
	ErrPolicyUnsupported = errors.New("floe: clock policy not supported by this format")

	// ErrInvalidLength: text or bytes of the wrong length for the format.
	ErrInvalidLength = errors.New("floe: invalid length")
	// ErrInvalidCharacter: a character outside the format's alphabet.
	ErrInvalidCharacter = errors.New("floe: invalid character")
	// ErrOutOfRange: a value that decodes but lies outside the format (a
	// number above 64 bits, a non-canonical encoding).
	ErrOutOfRange = errors.New("floe: value out of range")
	// ErrUnsupportedType: Scan was given a database value of a type the ID
	// cannot be read from.
	ErrUnsupportedType = errors.New("floe: unsupported type")
)

// ClockError reports that a generator refused to issue because its clock
// read behind the last tick it issued. It matches ErrClockBackwards.
type ClockError struct {
	Policy Policy        // the policy that refused
	Behind time.Duration // how far the clock read behind the last tick
	Waited time.Duration // how long the call waited before giving up
}

func (e *ClockError) Error() string {
	msg := "floe: clock is " + e.Behind.String() + " behind the last issued tick (policy " + e.Policy.String()
	if e.Waited > 0 {
		msg += ", waited " + e.Waited.String()
	}
	return msg + ")"
}

// Unwrap returns ErrClockBackwards.
func (e *ClockError) Unwrap() error { return ErrClockBackwards }

// CeilingError reports that the next tick lies above the reservation
// ceiling. It matches ErrCeiling.
type CeilingError struct {
	Tick    uint64 // the tick the generator needed
	Ceiling uint64 // the highest tick it may issue
}

func (e *CeilingError) Error() string {
	return fmt.Sprintf("floe: reservation ceiling reached: tick %d above ceiling %d", e.Tick, e.Ceiling)
}

// Unwrap returns ErrCeiling.
func (e *CeilingError) Unwrap() error { return ErrCeiling }

// ParseError reports input that is not a valid ID of a format. It wraps one
// of ErrInvalidLength, ErrInvalidCharacter, ErrOutOfRange or
// ErrUnsupportedType, and says where the input went wrong and what the
// format wants there:
//
//	floe: cannot parse "9qad!fh223ht2222" as id80: invalid character '!' at offset 4, want 2-9 a-x
//	floe: cannot parse "abc" as id80: invalid length 3, want 16 characters of 2-9 a-x
//	floe: cannot parse "18446744073709551616" as id64: value out of range, want 0 to 18446744073709551615
//
// Offset and Length refer to the whole input, which Input may hold only the
// start of.
type ParseError struct {
	Format string // "id64", "id80" or "id96"
	Input  string // the input, cut to 64 bytes
	Err    error  // the reason

	// Offset is, when Err is ErrInvalidCharacter, the byte offset in the
	// input of the first byte the format rejects, or the input's length
	// when the input ends too early (an unterminated JSON string). It is
	// -1 when the error is not about a byte, or does not say which.
	Offset int
	// Char is the character at Offset: its UTF-8 bytes, or the one byte
	// there when it does not start valid UTF-8; the character an escape
	// sequence there stands for, in a JSON string. It is empty when Offset
	// is -1 or at the end of the input.
	Char string
	// Length is, when Err is ErrInvalidLength, the length in bytes of what
	// the format measured: the input, or the text inside it that the format
	// reads, such as a JSON string's contents. It is -1 for other reasons.
	Length int
	// Want says what the format accepts where the input failed: the
	// characters, the lengths, the range or the types. It is empty when
	// not known.
	Want string
}

// NewParseError returns a *ParseError for format and input, keeping at most
// 64 bytes of input. Its Length is the input's length when reason is
// ErrInvalidLength, and -1 otherwise; its Offset is -1. Callers that know
// more set Offset, Char, Length and Want.
func NewParseError(format string, input []byte, reason error) *ParseError {
	const keep = 64 // enough to recognise the input, bounded for logs
	length := -1
	if reason == ErrInvalidLength {
		length = len(input)
	}
	if len(input) > keep {
		input = input[:keep]
	}
	return &ParseError{Format: format, Input: string(input), Err: reason, Offset: -1, Length: length}
}

func (e *ParseError) Error() string {
	return "floe: cannot parse " + strconv.Quote(e.Input) + " as " + e.Format + ": " + e.Reason()
}

// Reason returns the error's text without the input and the format: why
// the format refused the input, as in "invalid character '!' at offset 4,
// want 2-9 a-x".
func (e *ParseError) Reason() string {
	msg := reasonText(e.Err)
	switch {
	case errors.Is(e.Err, ErrInvalidCharacter) && e.Char != "" && e.Offset >= 0:
		msg += " " + quoteChar(e.Char) + " at offset " + strconv.Itoa(e.Offset)
	case errors.Is(e.Err, ErrInvalidCharacter) && e.Char == "" && e.Offset >= len(e.Input):
		// No character, and past what Input holds: the input ended there.
		// An Offset inside Input without its Char says nothing reliable
		// (a ParseError built without the details), so it is not shown.
		msg += ": input ends at offset " + strconv.Itoa(e.Offset)
	case errors.Is(e.Err, ErrInvalidLength) && e.Length >= 0:
		msg += " " + strconv.Itoa(e.Length)
	}
	if e.Want != "" {
		msg += ", want " + e.Want
	}
	return msg
}

// Unwrap returns the reason.
func (e *ParseError) Unwrap() error { return e.Err }

// quoteChar quotes c as a Go character literal: '!', 'é', '\x00', or
// '\xff' for a byte that does not start valid UTF-8.
func quoteChar(c string) string {
	r, size := utf8.DecodeRuneInString(c)
	if r == utf8.RuneError && size == 1 {
		s := strconv.Quote(c[:1])
		return "'" + s[1:len(s)-1] + "'"
	}
	return strconv.QuoteRune(r)
}

// reasonText strips the "floe: " prefix of a sentinel so it is not repeated.
func reasonText(err error) string {
	if err == nil {
		return "invalid"
	}
	s := err.Error()
	const prefix = "floe: "
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}
