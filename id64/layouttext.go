package id64

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// String describes l as text that ParseLayout reads back: the widths of
// the fields in their Order from the top (a datacenter or worker field of
// width 0 is left out), the unit, the epoch in UTC and "unsigned" for an
// Unsigned layout. Twitter and Sonyflake are
//
//	41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z
//	39t/8s/16w 10ms since 2014-09-01T00:00:00Z
//
// For every layout that passes Validate and whose epoch lies in the years
// 0000..9999, ParseLayout(l.String()) returns l with its epoch in UTC.
func (l Layout) String() string {
	b := make([]byte, 0, 64)
	b = strconv.AppendInt(b, int64(l.TimeBits), 10)
	b = append(b, 't')
	seq := func(b []byte) []byte {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(l.SequenceBits), 10)
		return append(b, 's')
	}
	if l.order() == TimeSequenceNode {
		b = seq(b)
	}
	if l.DatacenterBits != 0 {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(l.DatacenterBits), 10)
		b = append(b, 'd')
	}
	if l.WorkerBits != 0 {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(l.WorkerBits), 10)
		b = append(b, 'w')
	}
	if l.order() != TimeSequenceNode {
		b = seq(b)
	}
	b = append(b, ' ')
	b = append(b, l.Unit.String()...)
	b = append(b, " since "...)
	b = l.Epoch.UTC().AppendFormat(b, time.RFC3339Nano)
	if l.Unsigned {
		b = append(b, " unsigned"...)
	}
	return string(b)
}

// ParseLayout returns the layout that s names or writes out. s is either
// the name of a preset, as LayoutByName reads it, or a layout as String
// writes it (text with a slash), words separated by single spaces:
//
//	FIELDS UNIT since EPOCH [signed|unsigned]
//
// FIELDS are the widths of the fields from the top down, each a decimal
// number of bits followed by its letter and separated by slashes: time (t),
// datacenter (d), worker (w) and sequence (s). Time comes first; the
// datacenter and worker come together, datacenter first, and the sequence
// comes after them (TimeNodeSequence) or before them (TimeSequenceNode).
// Time and sequence are required; a datacenter or worker field left out has
// width 0, and a layout without node bits is TimeNodeSequence.
// UNIT is the length of a tick, as time.ParseDuration reads it (1ms, 10ms,
// 1s, 100us). EPOCH is the start of tick 0: an RFC 3339 time
// (2010-11-04T01:42:54.657Z, any offset), a date (2010-11-04, midnight UTC)
// or a number of milliseconds since the Unix epoch (1288834974657), within
// the years 0000..9999. A layout is signed (at most 63 bits, so its IDs fit
// a signed BIGINT) unless it ends in "unsigned". So Twitter is
//
//	41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z
//	41t/5d/5w/12s 1ms since 1288834974657
//
// and icicle 2.x with its own epoch, 41t/10w/12s 1ms since 1455788600316.
// sony/sonyflake v1, whose sequence comes before its machine ID, is
// 39t/8s/16w 10ms since 2014-09-01.
//
// Text that is not well formed is an error wrapping ErrLayoutText, which
// says what was wrong and where; a well-formed layout that fails Validate
// returns Validate's errors. An unknown name wraps ErrUnknownLayout.
func ParseLayout(s string) (Layout, error) {
	if !strings.Contains(s, "/") { // every layout written out has one
		return LayoutByName(s)
	}
	l, err := parseLayoutText(s)
	if err != nil {
		return Layout{}, fmt.Errorf("%w %s: %w", ErrLayoutText, quoteCut(s), err)
	}
	if err := l.Validate(); err != nil {
		return Layout{}, fmt.Errorf("layout %s: %w", quoteCut(s), oneLine(err))
	}
	return l, nil
}

// LayoutHelp says, in one line for a flag's usage, what ParseLayout reads.
const LayoutHelp = `twitter, icicle (icicle 1.x), icicle2 (icicle 2.x), instagram, discord, redisgen, sonyflake, hazelcast, js53 (IDs below 2^53), snowcast-N, ` +
	`or a layout written out, such as "41t/10w/12s 1ms since 2016-02-18" (bits of time, datacenter, worker and sequence from the top, ` +
	`tick unit, epoch as RFC 3339, date or Unix ms, then "unsigned" if the IDs may use the top bit)`

// layoutSyntax is what a layout's text looks like, for errors.
const layoutSyntax = `want "FIELDS UNIT since EPOCH [unsigned]", such as "41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z"`

// parseLayoutText reads the text form of a layout without validating it.
// Its errors are bare reasons for ParseLayout to wrap.
func parseLayoutText(s string) (Layout, error) {
	words := strings.Split(s, " ")
	for i, w := range words {
		if w == "" {
			return Layout{}, fmt.Errorf("empty word %d (separate the words by single spaces; %s)", i+1, layoutSyntax)
		}
	}
	var l Layout
	if err := parseFields(words[0], &l); err != nil {
		return Layout{}, err
	}
	if len(words) < 2 {
		return Layout{}, fmt.Errorf("no tick unit after the fields (%s)", layoutSyntax)
	}
	unit, err := parseUnit(words[1])
	if err != nil {
		return Layout{}, err
	}
	l.Unit = unit
	if len(words) < 3 || words[2] != "since" {
		return Layout{}, fmt.Errorf(`want "since EPOCH" after the tick unit (%s)`, layoutSyntax)
	}
	if len(words) < 4 {
		return Layout{}, errors.New(`no epoch after "since": want an RFC 3339 time, a date or Unix milliseconds`)
	}
	if l.Epoch, err = parseEpoch(words[3]); err != nil {
		return Layout{}, err
	}
	if len(words) > 4 {
		switch words[4] {
		case "unsigned":
			l.Unsigned = true
		case "signed":
		default:
			return Layout{}, fmt.Errorf("%q after the epoch: want signed, unsigned or nothing", cut(words[4]))
		}
	}
	if len(words) > 5 {
		return Layout{}, fmt.Errorf("%q after the sign: want nothing more", cut(words[5]))
	}
	return l, nil
}

// maxWidthDigits bounds a width's digits: every valid width is at most 64.
const maxWidthDigits = 2

// parseFields reads the widths, such as 41t/5d/5w/12s or 39t/8s/16w, into
// l, with their order.
func parseFields(s string, l *Layout) error {
	const want = "want widths such as 41t/5d/5w/12s or 39t/8s/16w: time (t) first, then datacenter (d) and worker (w) together and the sequence (s) after or before them, t and s required"
	var seen [4]bool // t, d, w, s
	last := byte(0)  // the letter before
	seqFirst := false
	for f := range strings.SplitSeq(s, "/") {
		if len(f) < 2 {
			return fmt.Errorf("field %q: %s", cut(f), want)
		}
		digits, letter := f[:len(f)-1], f[len(f)-1]
		at := strings.IndexByte("tdws", letter)
		if at < 0 || strings.Trim(digits, "0123456789") != "" {
			return fmt.Errorf("field %q: %s", cut(f), want)
		}
		if len(digits) > maxWidthDigits || digits[0] == '0' && len(digits) > 1 {
			return fmt.Errorf("field %q: want a width of 0..64 bits without leading zeros", cut(f))
		}
		switch {
		case seen[at]:
			return fmt.Errorf("field %q: a second %c field (%s)", cut(f), letter, want)
		case last == 0 && letter != 't':
			return fmt.Errorf("fields %q do not start with the time (t): %s", cut(s), want)
		case letter == 'd' && seen[2]:
			return fmt.Errorf("field %q after the worker: the datacenter comes first (%s)", cut(f), want)
		case letter == 'w' && seen[1] && last != 'd':
			return fmt.Errorf("field %q: the worker comes right after the datacenter (%s)", cut(f), want)
		case letter == 's' && !seen[1] && !seen[2]:
			seqFirst = true
		}
		seen[at] = true
		last = letter
		n, _ := strconv.Atoi(digits) // at most two digits
		switch letter {
		case 't':
			l.TimeBits = n
		case 'd':
			l.DatacenterBits = n
		case 'w':
			l.WorkerBits = n
		case 's':
			l.SequenceBits = n
		}
	}
	if !seen[3] {
		return fmt.Errorf("fields %q have no sequence (s): %s", cut(s), want)
	}
	if seqFirst && l.NodeBits() != 0 {
		l.Order = TimeSequenceNode
	}
	return nil
}

// parseUnit reads a tick unit: a positive duration.
func parseUnit(s string) (time.Duration, error) {
	const want = "want a positive duration such as 1ms, 10ms or 1s"
	if s[0] != '.' && (s[0] < '0' || s[0] > '9') {
		return 0, fmt.Errorf("tick unit %q: %s", cut(s), want)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("tick unit %q: %s", cut(s), want)
	}
	return d, nil
}

// The epochs ParseLayout accepts lie in the years 0000..9999, which
// RFC 3339 can write, so that String's text always reads back.
var (
	minEpoch = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxEpoch = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // excluded
)

// parseEpoch reads an epoch: Unix milliseconds, a date or an RFC 3339 time.
// The result is in UTC.
func parseEpoch(s string) (time.Time, error) {
	const want = "want an RFC 3339 time (2010-11-04T01:42:54.657Z), a date (2010-11-04) or Unix milliseconds (1288834974657)"
	var t time.Time
	if digits := strings.TrimPrefix(s, "-"); digits != "" && strings.Trim(digits, "0123456789") == "" {
		if digits[0] == '0' && (len(digits) > 1 || s[0] == '-') {
			return time.Time{}, fmt.Errorf("epoch %q: Unix milliseconds without leading zeros", cut(s))
		}
		ms, err := strconv.ParseInt(s, 10, 64)
		if err != nil || ms < minEpoch.UnixMilli() || ms >= maxEpoch.UnixMilli() {
			return time.Time{}, fmt.Errorf("epoch %q: Unix milliseconds outside the years 0000..9999", cut(s))
		}
		return time.UnixMilli(ms).UTC(), nil
	}
	var err error
	if len(s) == len(time.DateOnly) {
		t, err = time.Parse(time.DateOnly, s)
	} else {
		t, err = time.Parse(time.RFC3339Nano, s)
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("epoch %q: %s", cut(s), want)
	}
	t = t.UTC()
	if t.Before(minEpoch) || !t.Before(maxEpoch) {
		return time.Time{}, fmt.Errorf("epoch %q: outside the years 0000..9999 in UTC", cut(s))
	}
	return t, nil
}

// maxQuoted bounds the text an error repeats.
const maxQuoted = 100

// cut returns s, cut to maxQuoted bytes.
func cut(s string) string {
	if len(s) > maxQuoted {
		return s[:maxQuoted] + "..."
	}
	return s
}

// quoteCut returns s quoted, cut to maxQuoted bytes.
func quoteCut(s string) string { return strconv.Quote(cut(s)) }

// oneLine returns err with the errors it joins separated by "; " instead
// of newlines, so that a flag's error stays on one line. Matching with
// errors.Is still sees every joined error.
func oneLine(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	return joined(j.Unwrap())
}

// joined is errors joined by "; ".
type joined []error

func (j joined) Error() string {
	parts := make([]string, len(j))
	for i, e := range j {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

func (j joined) Unwrap() []error { return j }
