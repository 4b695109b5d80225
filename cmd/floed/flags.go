package main

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/floeid/floe"
	"github.com/floeid/floe/id64"
)

// The flag.Values of floed's flags. Each parses its flag and its FLOE_*
// variable alike, checks the range it accepts, and says in its error what
// it wants; the flag package and setFromEnv add the flag's or the
// variable's name and the value given.
//
// Their String methods also run on a zero Value (flag.PrintDefaults
// compares a default with a zero Value's), so they tolerate a nil pointer.

// uintFlag is an unsigned decimal integer: digits only, without a sign, a
// base prefix, spaces or a leading zero. flag.Uint64Var (and noeqd) would
// read 010 as 8 and 0x1f as 31 where a person may mean 10; a worker ID that
// could be read two ways is refused rather than guessed.
type uintFlag struct{ p *uint64 }

func (f uintFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.FormatUint(*f.p, 10)
}

func (f uintFlag) Set(s string) error {
	n, err := parseDecimal(s)
	if err != nil {
		return err
	}
	*f.p = n
	return nil
}

// parseDecimal parses s as uintFlag does.
func parseDecimal(s string) (uint64, error) {
	const want = "want an unsigned decimal integer (digits only, no leading zero)"
	if s == "" || strings.TrimLeft(s, "0123456789") != "" || s[0] == '0' && len(s) > 1 {
		return 0, errors.New(want)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil { // only a range error is left
		return 0, fmt.Errorf("%s: %w", want, strconv.ErrRange)
	}
	return n, nil
}

// intFlag is a decimal integer, as uintFlag reads it, of at least min.
type intFlag struct {
	p   *int
	min int
}

func (f intFlag) String() string {
	if f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f intFlag) Set(s string) error {
	n, err := parseDecimal(s)
	switch {
	case err != nil:
		return err
	case n > math.MaxInt:
		return fmt.Errorf("want at most %d", math.MaxInt)
	case int(n) < f.min:
		return fmt.Errorf("want at least %d", f.min)
	}
	*f.p = int(n)
	return nil
}

// Bounds of a durationFlag.
const (
	anyDuration time.Duration = math.MinInt64 // a shift of the clock, either way
	positive    time.Duration = 1             // a timeout or a bound: zero would not mean zero
)

// durationFlag is a duration of at least min, written as time.ParseDuration
// reads it.
type durationFlag struct {
	p   *time.Duration
	min time.Duration
}

func (f durationFlag) String() string {
	if f.p == nil {
		return "0s"
	}
	return f.p.String()
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("want a duration such as 5s, 250ms or 1m30s")
	}
	switch {
	case d >= f.min:
	case f.min == positive:
		return errors.New("want a duration above zero")
	default:
		return fmt.Errorf("want a duration of at least %v", f.min)
	}
	*f.p = d
	return nil
}

// boolFlag is a boolean, as strconv.ParseBool reads it (true, false, 1, 0,
// ...); given without a value, the flag means true.
type boolFlag struct{ p *bool }

func (f boolFlag) IsBoolFlag() bool { return true }

func (f boolFlag) String() string {
	if f.p == nil {
		return "false"
	}
	return strconv.FormatBool(*f.p)
}

func (f boolFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false (or 1 or 0)")
	}
	*f.p = b
	return nil
}

// textFlag is a string that valid accepts, or any but "" when valid is
// nil; want says what it holds.
type textFlag struct {
	p     *string
	want  string
	valid func(string) bool
}

func (f textFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f textFlag) Set(s string) error {
	if s == "" || f.valid != nil && !f.valid(s) {
		return errors.New("want " + f.want)
	}
	*f.p = s
	return nil
}

// addrFlag is a TCP address, host:port: the host may be empty, the port is
// a number or a service name. With off, "" is accepted too: no address.
type addrFlag struct {
	p   *string
	off bool
}

func (f addrFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f addrFlag) Set(s string) error {
	if s == "" && f.off {
		*f.p = s
		return nil
	}
	_, port, err := net.SplitHostPort(s)
	if err == nil && port != "" {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil || port == "" {
		if f.off {
			return errors.New("want host:port, or empty for none")
		}
		return errors.New("want host:port")
	}
	*f.p = s
	return nil
}

// choiceFlag is one of a few words.
type choiceFlag struct {
	p       *string
	choices []string
}

func (f choiceFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			*f.p = s
			return nil
		}
	}
	return errors.New("want " + strings.Join(f.choices, " or "))
}

// levelFlag is a log level, as slog.Level reads it: debug, info, warn or
// error, optionally with an offset (info+2).
type levelFlag struct{ p *slog.Level }

func (f levelFlag) String() string {
	if f.p == nil {
		return slog.LevelInfo.String()
	}
	return strings.ToLower(f.p.String())
}

func (f levelFlag) Set(s string) error {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return errors.New("want debug, info, warn or error")
	}
	*f.p = l
	return nil
}

// policyFlag is the daemon's clock policy: wait, fail or borrow (ticktock
// is for id80 generators only).
type policyFlag struct{ p *floe.Policy }

func (f policyFlag) String() string {
	if f.p == nil {
		return floe.Wait.String()
	}
	return f.p.String()
}

func (f policyFlag) Set(s string) error {
	p, err := floe.ParsePolicy(s)
	if err != nil || p == floe.TickTock {
		return errors.New("want wait, fail or borrow")
	}
	*f.p = p
	return nil
}

// layoutFlag is an id64 layout, as id64.ParseLayout reads it: a preset's
// name or a layout written out. It may not be empty.
type layoutFlag struct{ p *string }

func (f layoutFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f layoutFlag) Set(s string) error {
	if s == "" {
		return errors.New("want " + id64.LayoutHelp)
	}
	if _, err := id64.ParseLayout(s); err != nil {
		return err
	}
	*f.p = s
	return nil
}

// timeFlag is a time of death: Unix milliseconds (noeqd's -t) or RFC 3339.
type timeFlag struct{ t *time.Time }

func (f timeFlag) String() string {
	if f.t == nil || f.t.IsZero() {
		return ""
	}
	return f.t.Format(time.RFC3339Nano)
}

func (f timeFlag) Set(v string) error {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		*f.t = time.UnixMilli(ms)
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return errors.New("want Unix milliseconds or an RFC 3339 time")
	}
	*f.t = t
	return nil
}

// listFlag is a repeatable flag whose variable is a comma-separated list;
// check, when not nil, vets each item. The first flag given replaces the
// variable's list. A secret list's items are never repeated in errors.
type listFlag struct {
	vals    *[]string
	check   func(string) error
	secret  bool
	fromEnv bool
}

func (l *listFlag) String() string {
	if l.vals == nil {
		return ""
	}
	return strings.Join(*l.vals, ",")
}

func (l *listFlag) Set(v string) error {
	if l.check != nil {
		if err := l.check(v); err != nil {
			return err
		}
	}
	if l.fromEnv {
		*l.vals, l.fromEnv = nil, false
	}
	*l.vals = append(*l.vals, v)
	return nil
}

// setEnv sets the list from its variable: each comma-separated item as if
// given to the flag, so that an empty variable is one empty item.
func (l *listFlag) setEnv(v string) error {
	items := strings.Split(v, ",")
	var vals []string
	for i, item := range items {
		if l.check != nil {
			if err := l.check(item); err != nil {
				if l.secret {
					return fmt.Errorf("item %d: %w", i+1, err)
				}
				return fmt.Errorf("item %q: %w", item, err)
			}
		}
		vals = append(vals, item)
	}
	*l.vals, l.fromEnv = vals, true
	return nil
}

// secretFlag is a string flag whose value -h never shows, and errors about
// which never repeat it: a token or a password.
type secretFlag struct{ p *string }

func (f secretFlag) String() string { return "" }

func (f secretFlag) Set(v string) error {
	*f.p = v
	return nil
}
