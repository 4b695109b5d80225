package id64

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseLayout(t *testing.T) {
	sc, _ := Snowcast(1024)
	tests := []struct {
		name string
		in   string
		want Layout
	}{
		{"preset name", "twitter", Twitter},
		{"icicle 2.x by name", "icicle2", Icicle2},
		{"redisgen by name", "redisgen", Redisgen},
		{"snowcast by name", "snowcast-1024", sc},
		{"twitter written out", "41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z", Twitter},
		{"epoch in unix milliseconds", "41t/5d/5w/12s 1ms since 1288834974657", Twitter},
		{"epoch with an offset", "41t/5d/5w/12s 1ms since 2010-11-04T02:42:54.657+01:00", Twitter},
		{"signed said", "41t/5d/5w/12s 1ms since 1288834974657 signed", Twitter},
		{"icicle 1.x", "41t/10w/12s 1ms since 1401277473", Icicle},
		{"icicle 2.x", "41t/10w/12s 1ms since 1455788600316", Icicle2},
		{"epoch as a date", "42t/5d/5w/12s 1ms since 2015-01-01 unsigned", Discord},
		{"instagram", "41t/13w/10s 1ms since 2011-08-24T21:07:01.721Z unsigned", Instagram},
		{"zero widths said", "41t/0d/10w/12s 1ms since 1401277473", Icicle},
		{"no node", "39t/24s 10ms since 2020-01-01", Layout{Epoch: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Unit: 10 * time.Millisecond, TimeBits: 39, SequenceBits: 24}},
		{"datacenter only", "33t/8d/16s 1s since 0", Layout{Epoch: time.Unix(0, 0).UTC(), Unit: time.Second, TimeBits: 33, DatacenterBits: 8, SequenceBits: 16}},
		{"microsecond unit", "46t/17s 100us since 2020-01-01", Layout{Epoch: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Unit: 100 * time.Microsecond, TimeBits: 46, SequenceBits: 17}},
		{"epoch before 1970", "41t/22s 1ms since -1000", Layout{Epoch: time.UnixMilli(-1000).UTC(), Unit: time.Millisecond, TimeBits: 41, SequenceBits: 22}},
		{"sequence before the node", "39t/8s/16w 10ms since 2014-09-01", Layout{Epoch: time.Date(2014, 9, 1, 0, 0, 0, 0, time.UTC), Unit: 10 * time.Millisecond, TimeBits: 39, WorkerBits: 16, SequenceBits: 8, Order: TimeSequenceNode}},
		{"sequence before a split node", "41t/6s/8d/8w 1ms since 2018-01-01", Layout{Epoch: time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimeBits: 41, DatacenterBits: 8, WorkerBits: 8, SequenceBits: 6, Order: TimeSequenceNode}},
		{"sequence before the datacenter only", "41t/6s/16d 1ms since 2018-01-01", Layout{Epoch: time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimeBits: 41, DatacenterBits: 16, SequenceBits: 6, Order: TimeSequenceNode}},
		{"sequence before a zero-width node", "41t/22s/0w 1ms since 2018-01-01", Layout{Epoch: time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimeBits: 41, SequenceBits: 22}},
		{"sequence before a zero-width datacenter", "41t/6s/0d/16w 1ms since 2018-01-01", Layout{Epoch: time.Date(2018, 1, 1, 0, 0, 0, 0, time.UTC), Unit: time.Millisecond, TimeBits: 41, WorkerBits: 16, SequenceBits: 6, Order: TimeSequenceNode}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLayout(tt.in)
			if err != nil || got != tt.want {
				t.Fatalf("ParseLayout(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			again, err := ParseLayout(got.String())
			if err != nil || again != got {
				t.Errorf("ParseLayout(%q) = %v, %v; want %v", got.String(), again, err, got)
			}
		})
	}
}

func TestParseLayout_Errors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		err  error
		says string
	}{
		{"unknown name", "flake", ErrUnknownLayout, `"flake" (want twitter, icicle, icicle2`},
		{"name with a space", "icicle 2", ErrUnknownLayout, `"icicle 2" (want twitter`},
		{"empty word", "41t/10w/12s  1ms since 2016-02-18", ErrLayoutText, "empty word 2"},
		{"trailing space", "41t/10w/12s 1ms since 2016-02-18 ", ErrLayoutText, "empty word 5"},
		{"fields only", "41t/10w/12s", ErrLayoutText, "no tick unit"},
		{"no since", "41t/10w/12s 1ms 2016-02-18", ErrLayoutText, `want "since EPOCH"`},
		{"no epoch", "41t/10w/12s 1ms since", ErrLayoutText, "no epoch"},
		{"unknown field letter", "41t/10x/12s 1ms since 2016-02-18", ErrLayoutText, `field "10x"`},
		{"width without letter", "41t/10/12s 1ms since 2016-02-18", ErrLayoutText, `field "10"`},
		{"letter without width", "41t/w/12s 1ms since 2016-02-18", ErrLayoutText, `field "w"`},
		{"fields out of order", "41t/10w/5d/12s 1ms since 2016-02-18", ErrLayoutText, `field "5d" after the worker`},
		{"field twice", "41t/10w/10w/12s 1ms since 2016-02-18", ErrLayoutText, `field "10w"`},
		{"no time field", "10w/12s 1ms since 2016-02-18", ErrLayoutText, "do not start with the time"},
		{"no sequence field", "41t/10w 1ms since 2016-02-18", ErrLayoutText, "have no sequence (s)"},
		{"sequence between datacenter and worker", "41t/5d/12s/5w 1ms since 2016-02-18", ErrLayoutText, `field "5w": the worker comes right after the datacenter`},
		{"zero-width datacenter apart from the worker", "41t/0d/12s/10w 1ms since 2016-02-18", ErrLayoutText, `field "10w": the worker comes right after the datacenter`},
		{"worker before datacenter, sequence first", "41t/12s/5w/5d 1ms since 2016-02-18", ErrLayoutText, `field "5d" after the worker`},
		{"sequence twice around the node", "39t/4s/16w/4s 10ms since 2014-09-01", ErrLayoutText, `field "4s": a second s field`},
		{"leading zero width", "41t/010w/12s 1ms since 2016-02-18", ErrLayoutText, "leading zeros"},
		{"width too wide", "41t/100w/12s 1ms since 2016-02-18", ErrLayoutText, "0..64"},
		{"negative width", "41t/-1w/12s 1ms since 2016-02-18", ErrLayoutText, `field "-1w"`},
		{"bad unit", "41t/10w/12s 1 since 2016-02-18", ErrLayoutText, `tick unit "1"`},
		{"negative unit", "41t/10w/12s -1ms since 2016-02-18", ErrLayoutText, `tick unit "-1ms"`},
		{"zero unit", "41t/10w/12s 0s since 2016-02-18", ErrLayoutText, `tick unit "0s"`},
		{"bad epoch", "41t/10w/12s 1ms since yesterday", ErrLayoutText, `epoch "yesterday"`},
		{"epoch without a zone", "41t/10w/12s 1ms since 2016-02-18T09:43:20", ErrLayoutText, "RFC 3339"},
		{"epoch with leading zero", "41t/10w/12s 1ms since 01455788600316", ErrLayoutText, "leading zeros"},
		{"epoch past 9999", "41t/10w/12s 1ms since 253402300800000", ErrLayoutText, "0000..9999"},
		{"epoch before year 0 in utc", "41t/22s 1ms since 0000-01-01T00:00:00+01:00", ErrLayoutText, "0000..9999"},
		{"epoch overflows", "41t/22s 1ms since 99999999999999999999", ErrLayoutText, "0000..9999"},
		{"bad sign word", "41t/10w/12s 1ms since 2016-02-18 maybe", ErrLayoutText, `"maybe" after the epoch`},
		{"trailing words", "41t/10w/12s 1ms since 2016-02-18 unsigned now", ErrLayoutText, `"now" after the sign`},
		{"too many bits", "41t/10w/13s 1ms since 2016-02-18", ErrLayoutBits, "64 bits, at most 63"},
		{"no sequence bits", "41t/10w/0s 1ms since 2016-02-18", ErrLayoutSequenceBits, ""},
		{"time too wide", "57t/1s 1ms since 2016-02-18", ErrLayoutTimeBits, ""},
		{"span too long", "56t/1s 1000h since 2016-02-18", ErrLayoutSpan, "2^56 ticks of 1000h0m0s after 2016-02-18T00:00:00Z"},
		{"zero epoch", "41t/22s 1ms since 0001-01-01", ErrLayoutEpoch, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseLayout(tt.in)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseLayout(%q) = %v, %v; want an error wrapping %v", tt.in, got, err, tt.err)
			}
			if msg := err.Error(); !strings.Contains(msg, tt.says) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line with %q", msg, tt.says)
			}
		})
	}
}

func FuzzParseLayout(f *testing.F) {
	for _, l := range []Layout{Twitter, Icicle, Icicle2, Instagram, Discord, Redisgen} {
		f.Add(l.String())
	}
	f.Add("41t/5d/5w/12s 1ms since 1288834974657")
	f.Add("39t/24s 1.5ms since 2020-01-01 signed")
	f.Add("39t/8s/16w 10ms since 2014-09-01")
	f.Add("41t/6s/8d/8w 1ms since 1514764800000 unsigned")
	f.Add("48t/16s 1ms since 1970-01-01 unsigned")
	f.Add("snowcast-1024")
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayout(s)
		if err != nil {
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("ParseLayout(%q) = %v, which fails Validate: %v", s, l, err)
		}
		text := l.String()
		again, err := ParseLayout(text)
		if err != nil || again != l.withUTCEpoch() {
			t.Fatalf("ParseLayout(%q) = %v, %v; want %v", text, again, err, l)
		}
		if got := again.String(); got != text {
			t.Fatalf("String() = %q after a round trip, want %q", got, text)
		}
	})
}

// withUTCEpoch returns l with its epoch in UTC, as ParseLayout returns it.
func (l Layout) withUTCEpoch() Layout {
	l.Epoch = l.Epoch.UTC()
	return l
}
