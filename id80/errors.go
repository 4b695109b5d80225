package id80

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// format names this package in the errors it returns.
const format = "id80"

// What the decoders and Compose accept, as their *floe.ParseError values
// say it.
var (
	wantChars     = textid.Ranges(alphabet) // 2-9 a-x
	wantText      = strconv.Itoa(EncodedSize) + " characters of " + wantChars
	wantBytes     = strconv.Itoa(Size) + " bytes"
	wantScanBytes = wantText + " or " + wantBytes
	wantJSON      = "a JSON string or null"
	wantScanTypes = "string, []byte or nil"
	wantTime      = epoch.Format(time.RFC3339Nano) + " to " + timeOf(MaxTimestamp).Add(TimeUnit-1).Format(time.RFC3339Nano)
	wantTimestamp = "at most " + strconv.FormatUint(MaxTimestamp, 10)
)

// textError returns the error for src, which is not the text of an ID: its
// length, or the first byte outside the alphabet.
func textError[T string | []byte](src T) *floe.ParseError {
	if len(src) != EncodedSize {
		return textid.LengthError(format, src, len(src), wantText)
	}
	i := 0
	for i < len(src) && strings.IndexByte(alphabet, src[i]) >= 0 {
		i++
	}
	return textid.CharError(format, src, i, wantChars)
}

// Generator configuration errors.
var (
	// ErrSequenceBounds: SequenceMin above SequenceMax, or a pool of fewer
	// than 4 sequence numbers.
	ErrSequenceBounds = errors.New("floe: invalid sequence bounds")
	// ErrSnapshot: a snapshot whose timestamps lie outside the format.
	ErrSnapshot = errors.New("floe: invalid snapshot")
)
