package id96

import (
	"errors"
	"strconv"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/internal/textid"
)

// format names this package in every *floe.ParseError it returns.
const format = "id96"

// What the decoders and Compose accept, as their *floe.ParseError values
// say it.
var (
	wantChars     = textid.Ranges(alphabet) // . 0-9 A-Z _ a-z
	wantText      = strconv.Itoa(EncodedLen) + " characters of " + wantChars
	wantCastText  = wantText + " after the *"
	wantBytes     = strconv.Itoa(Size) + " bytes"
	wantScanBytes = wantText + " or " + wantBytes
	wantJSON      = "a JSON string or null"
	wantScanTypes = "string, []byte or nil"
	wantTime      = time.Unix(0, 0).UTC().Format(time.RFC3339Nano) + " to " + timeOf(MaxTick).Add(TickUnit-1).Format(time.RFC3339Nano)
	wantDrift     = "at most " + strconv.Itoa(int(MaxDrift))
	wantTick      = "at most " + strconv.FormatUint(MaxTick, 10)
	wantSequence  = "at most " + strconv.Itoa(MaxSequence)
)

// textError returns the error for text, which decode refused: its length,
// or the first byte outside the alphabet.
func textError[T string | []byte](text T) *floe.ParseError {
	if len(text) != EncodedLen {
		return textid.LengthError(format, text, len(text), wantText)
	}
	i := 0
	for i < len(text) && decoding[text[i]] != invalid {
		i++
	}
	return textid.CharError(format, text, i, wantChars)
}

// ErrDrift: a generator configured with a drift code above MaxDrift.
var ErrDrift = errors.New("floe: drift code above 7")
