package id64

import (
	"errors"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// Layout errors. Layout.Validate returns every violation it finds, joined,
// so each one matches with errors.Is.
var (
	// ErrLayoutEpoch: the layout's Epoch is the zero time.Time.
	ErrLayoutEpoch = errors.New("floe: layout epoch is not set")
	// ErrLayoutUnit: the layout's Unit is zero or negative.
	ErrLayoutUnit = errors.New("floe: layout unit is not positive")
	// ErrLayoutNegativeBits: a bit width of the layout is negative.
	ErrLayoutNegativeBits = errors.New("floe: layout bit width is negative")
	// ErrLayoutTimeBits: the time field has no bits or more than 56.
	ErrLayoutTimeBits = errors.New("floe: layout time bits not in 1..56")
	// ErrLayoutSequenceBits: the sequence field has no bits.
	ErrLayoutSequenceBits = errors.New("floe: layout has no sequence bits")
	// ErrLayoutBits: the fields add up to more than 63 bits (64 when the
	// layout is Unsigned).
	ErrLayoutBits = errors.New("floe: layout uses too many bits")
	// ErrLayoutSpan: the layout's time runs out (End) later than a
	// time.Time can hold, some 292 billion years from now.
	ErrLayoutSpan = errors.New("floe: layout time span ends beyond what time.Time holds")
	// ErrLayoutOrder: the layout's Order is neither TimeNodeSequence nor
	// TimeSequenceNode.
	ErrLayoutOrder = errors.New("floe: layout field order unknown")
	// ErrUnknownLayout: LayoutByName or ParseLayout was given a name it
	// does not know.
	ErrUnknownLayout = errors.New("floe: unknown layout")
	// ErrLayoutText: ParseLayout was given text that is not a layout as
	// Layout.String writes it.
	ErrLayoutText = errors.New("floe: malformed layout")
)

// Errors of Layout methods that take field values.
var (
	// ErrBeforeEpoch: a time before the layout's epoch, which no tick can
	// represent. Times past the last tick are floe.ErrTimeExhausted.
	ErrBeforeEpoch = errors.New("floe: time is before the layout epoch")
	// ErrDatacenterRange: a datacenter ID above Layout.MaxDatacenter.
	ErrDatacenterRange = errors.New("floe: datacenter id out of range")
	// ErrWorkerRange: a worker ID above Layout.MaxWorker.
	ErrWorkerRange = errors.New("floe: worker id out of range")
	// ErrNodeRange: a node ID above Layout.MaxNode.
	ErrNodeRange = errors.New("floe: node id out of range")
	// ErrSequenceRange: a sequence number above Layout.MaxSequence.
	ErrSequenceRange = errors.New("floe: sequence out of range")
	// ErrPartsMismatch: Parts given to Layout.Compose whose redundant fields
	// (Time and Tick, or Node and Datacenter/Worker) disagree.
	ErrPartsMismatch = errors.New("floe: parts disagree")
	// ErrIDRange: an ID with bits set above the layout's fields, which the
	// layout cannot hold (Layout.CheckID).
	ErrIDRange = errors.New("floe: id out of the layout's range")
	// ErrEmptyRange: Layout.Range was given an end before its start.
	ErrEmptyRange = errors.New("floe: time range ends before it starts")
	// ErrSnowcastNodes: a Snowcast node count outside 128..8192.
	ErrSnowcastNodes = errors.New("floe: snowcast node count not in 128..8192")
)

// What the decoders accept, as their *floe.ParseError values say it.
const (
	wantDigits    = "0-9"
	wantLength    = "1 to 20 digits"
	wantRange     = "0 to 18446744073709551615"
	wantBytes     = "8 bytes"
	wantJSON      = "a JSON string, number or null"
	wantNoZero    = "a JSON number without leading zeros"
	wantScanTypes = "int64, uint64, string, []byte or nil"
	wantNegative  = "-9223372036854775808 to -1 (a signed 64-bit integer)"
)

// decimalError returns the *floe.ParseError for input whose digits, from
// start on, parseDecimal refused with reason. Offsets and lengths count in
// input; the length is that of the digits.
func decimalError[T string | []byte](input T, start int, reason error) *floe.ParseError {
	switch reason {
	case floe.ErrInvalidCharacter:
		i := start
		for i < len(input) && input[i]-'0' <= 9 {
			i++
		}
		return textid.CharError(format, input, i, wantDigits)
	case floe.ErrInvalidLength:
		return textid.LengthError(format, input, len(input)-start, wantLength)
	}
	return textid.Error(format, input, reason, wantRange)
}
