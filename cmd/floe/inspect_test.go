package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/internal/redistest"
	"github.com/floeid/floe/redisgen"
)

// noUUID is the end of inspect's error for text of n bytes that is no ID:
// why it is no UUID.
func noUUID(n int) string {
	return fmt.Sprintf("; uuid: invalid length %d, want 36 characters (8-4-4-4-12 hexadecimal digits), 38 in braces, 45 after urn:uuid: or 32 digits", n)
}

func TestInspect(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		code int
		errs string // in stderr
	}{
		{"twitter", []string{"inspect", "2124472963691585536"}, "2124472963691585536 id64 layout=twitter time=2026-11-22T12:00:00Z tick=506513825343 datacenter=1 worker=2 sequence=0\n", 0, ""},
		{"a tweet", []string{"inspect", "1599182356107579392"}, "1599182356107579392 id64 layout=twitter time=2022-12-03T23:22:39.724Z tick=381274785067 datacenter=14 worker=21 sequence=0\n", 0, ""},
		{"discord", []string{"inspect", "-layout", "discord", "175928847299117063"}, "175928847299117063 id64 layout=discord time=2016-04-30T11:18:25.796Z tick=41944705796 datacenter=1 worker=0 sequence=7\n", 0, ""},
		{"icicle 1.x", []string{"inspect", "-layout", "icicle", "5980618838099710408"}, "5980618838099710408 id64 layout=icicle time=2015-03-25T13:58:43Z tick=1425890645527 datacenter=0 worker=789 sequence=456\n", 0, ""},
		{"icicle 2.x", []string{"inspect", "-layout", "icicle2", "143322835047240136"}, "143322835047240136 id64 layout=icicle2 time=2017-03-19T21:37:07Z tick=34170826684 datacenter=0 worker=789 sequence=456\n", 0, ""},
		{"icicle 2.x written out", []string{"inspect", "-layout", "41t/10w/12s 1ms since 1455788600316", "143322835047240136"}, `143322835047240136 id64 layout="41t/10w/12s 1ms since 2016-02-18T09:43:20.316Z" time=2017-03-19T21:37:07Z tick=34170826684 datacenter=0 worker=789 sequence=456` + "\n", 0, ""},
		{"redisgen", []string{"inspect", "-layout", "redisgen", "1652854943121428480"}, "1652854943121428480 id64 layout=redisgen time=2026-11-22T12:00:00Z tick=394071327000 datacenter=0 worker=5 sequence=0\n", 0, ""},
		{"id80, also valid as id96", []string{"inspect", "9q8xk7a2272im222"}, "9q8xk7a2272im222 id80 time=2026-11-22T12:00:00Z ticktock=false meta=1 partition=16650 sequence=0 likely=true\n9q8xk7a2272im222 id96 time=2177-12-19T22:06:37.825032192Z drift=1 node=1153533504 sequence=12483 likely=false\n", 0, ""},
		{"forced id80", []string{"inspect", "-format", "id80", "9q8xk7a2272im222"}, "9q8xk7a2272im222 id80 time=2026-11-22T12:00:00Z ticktock=false meta=1 partition=16650 sequence=0\n", 0, ""},
		{"forced id96", []string{"inspect", "-format", "id96", "9q8xk7a2272im222"}, "9q8xk7a2272im222 id96 time=2177-12-19T22:06:37.825032192Z drift=1 node=1153533504 sequence=12483\n", 0, ""},
		{"bad format", []string{"inspect", "-format", "id32", "1"}, "", 1, `-format "id32"`},
		{"bad output", []string{"inspect", "-o", "xml", "1"}, "", 1, `-o "xml"`},
		{"id96", []string{"inspect", "NlpAV..5KzRKzN.."}, "NlpAV..5KzRKzN.. id96 time=2026-11-22T11:59:59.999967232Z drift=3 node=51966 sequence=0\n", 0, ""},
		{"garbage", []string{"inspect", "garbage"}, "", 1, "garbage: not an ID of any format: id64: invalid character 'g' at offset 0, want 0-9; id80: invalid length 7, want 16 characters of 2-9 a-x; id96: invalid length 7, want 16 characters of . 0-9 A-Z _ a-z" + noUUID(7) + "\n"},
		{"16 characters of neither alphabet", []string{"inspect", "9q8xk7a2272im22!"}, "", 1, "9q8xk7a2272im22!: not an ID of any format: id64: invalid character 'q' at offset 1, want 0-9; id80: invalid character '!' at offset 15, want 2-9 a-x; id96: invalid character '!' at offset 15, want . 0-9 A-Z _ a-z" + noUUID(16) + "\n"},
		{"16 bytes with a non-ascii character", []string{"inspect", "9q8xk7a2272im2é"}, "", 1, "9q8xk7a2272im2é: not an ID of any format: id64: invalid character 'q' at offset 1, want 0-9; id80: invalid character 'é' at offset 14, want 2-9 a-x; id96: invalid character 'é' at offset 14, want . 0-9 A-Z _ a-z" + noUUID(16) + "\n"},
		{"empty", []string{"inspect", ""}, "", 1, ": not an ID of any format: id64: invalid length 0, want 1 to 20 digits; id80: invalid length 0, want 16 characters of 2-9 a-x; id96: invalid length 0, want 16 characters of . 0-9 A-Z _ a-z" + noUUID(0) + "\n"},
		{"forced id80 on garbage", []string{"inspect", "-format", "id80", "garbage"}, "", 1, "garbage: id80: invalid length 7, want 16 characters of 2-9 a-x\n"},
		{"forced id96 on an id80 with a bad character", []string{"inspect", "-format", "id96", "9q8xk7a2272im2-2"}, "", 1, "9q8xk7a2272im2-2: id96: invalid character '-' at offset 14, want . 0-9 A-Z _ a-z\n"},
		{"forced id64 on garbage", []string{"inspect", "-format", "id64", "12x"}, "", 1, "12x: id64: invalid character 'x' at offset 2, want 0-9\n"},
		{"above 64 bits", []string{"inspect", "18446744073709551616"}, "", 1, "18446744073709551616: id64: value out of range, want 0 to 18446744073709551615\n"},
		{"21 digits", []string{"inspect", "000000000000000000001"}, "", 1, "000000000000000000001: id64: invalid length 21, want 1 to 20 digits\n"},
		{"good and bad", []string{"inspect", "1599182356107579392", "garbage"}, "1599182356107579392 id64 layout=twitter time=2022-12-03T23:22:39.724Z tick=381274785067 datacenter=14 worker=21 sequence=0\n", 1, "1 of the IDs could not be decoded"},
		{"unknown layout", []string{"inspect", "-layout", "nope", "1"}, "", 1, `-layout: floe: unknown layout: "nope"`},
		{"malformed layout", []string{"inspect", "-layout", "41t/10w/12s 1ms", "1"}, "", 1, `-layout: floe: malformed layout "41t/10w/12s 1ms": want "since EPOCH"`},
		{"top bit on a signed layout", []string{"inspect", "9223372036854775808"}, "", 1, "9223372036854775808: id64: floe: id out of the layout's range: 9223372036854775808 has the top bit set"},
		{"top bit on a signed layout written out", []string{"inspect", "-layout", "41t/5d/5w/12s 1ms since 1288834974657", "9223372036854775808"}, "", 1, "has the top bit set"},
		{"largest uint64 on a signed layout", []string{"inspect", "-format", "id64", "18446744073709551615"}, "", 1, "out of the layout's range"},
		{"top bit on an unsigned layout", []string{"inspect", "-layout", "discord", "9223372036854775808"}, "9223372036854775808 id64 layout=discord time=2084-09-06T15:47:35.552Z tick=2199023255552 datacenter=0 worker=0 sequence=0\n", 0, ""},
		// next_id's BIGINT for 2050-01-02T03:04:05.006Z, shard 5, sequence 7,
		// as PostgreSQL returns it: ((ms - 1314220021721) << 23 | 5 << 10 | 7)
		// wraps past 2^63 into a negative number.
		{"instagram after 2046, negative", []string{"inspect", "-layout", "instagram", "--", "-8292456368057609209"}, "-8292456368057609209 id64 layout=instagram unsigned=10154287705651942407 time=2050-01-02T03:04:05.006Z tick=1210485423285 datacenter=0 worker=5 sequence=7\n", 0, ""},
		{"instagram after 2046, unsigned", []string{"inspect", "-layout", "instagram", "10154287705651942407"}, "10154287705651942407 id64 layout=instagram time=2050-01-02T03:04:05.006Z tick=1210485423285 datacenter=0 worker=5 sequence=7\n", 0, ""},
		{"instagram negative forced id64", []string{"inspect", "-layout", "instagram", "-format", "id64", "--", "-8292456368057609209"}, "-8292456368057609209 id64 layout=instagram unsigned=10154287705651942407 time=2050-01-02T03:04:05.006Z tick=1210485423285 datacenter=0 worker=5 sequence=7\n", 0, ""},
		{"negative below int64", []string{"inspect", "-layout", "instagram", "--", "-9223372036854775809"}, "", 1, "-9223372036854775809: id64: value out of range, want -9223372036854775808 to -1 (a signed 64-bit integer)\n"},
		{"negative with a bad byte", []string{"inspect", "-layout", "instagram", "-format", "id64", "--", "-12x"}, "", 1, "-12x: id64: invalid character 'x' at offset 3, want 0-9"},
		{"negative on a signed layout", []string{"inspect", "--", "-8292456368057609209"}, "", 1, "-8292456368057609209: id64: -8292456368057609209 is negative, and the layout twitter never is: it does not use the top bit"},
		{"negative on a signed layout written out", []string{"inspect", "-layout", "41t/10w/12s 1ms since 1314220021721", "--", "-1"}, "", 1, "is negative, and the layout \"41t/10w/12s 1ms since 2011-08-24T21:07:01.721Z\" never is"},
		{"top bit on an unsigned layout written out", []string{"inspect", "-layout", "42t/5d/5w/12s 1ms since 2015-01-01 unsigned", "9223372036854775808"}, `9223372036854775808 id64 layout="42t/5d/5w/12s 1ms since 2015-01-01T00:00:00Z unsigned" time=2084-09-06T15:47:35.552Z tick=2199023255552 datacenter=0 worker=0 sequence=0` + "\n", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := run(tc.args, &out, &errOut)
			if code != tc.code || out.String() != tc.want || !strings.Contains(errOut.String(), tc.errs) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out.String(), errOut.String(), tc.code, tc.want, tc.errs)
			}
		})
	}
}

// withStdin runs f with in as inspect's stdin.
func withStdin(t *testing.T, in io.Reader, f func()) {
	t.Helper()
	saved := stdin
	stdin = in
	defer func() { stdin = saved }()
	f()
}

func TestInspect_Stdin(t *testing.T) {
	const input = "1599182356107579392\n\n  9q8xk7a2272im222 \r\ngarbage\n"
	tests := []struct {
		name string
		args []string
		in   string
		want string
		code int
	}{
		{"no arguments", []string{"inspect"}, input, "1599182356107579392 id64 layout=twitter time=2022-12-03T23:22:39.724Z tick=381274785067 datacenter=14 worker=21 sequence=0\n" +
			"9q8xk7a2272im222 id80 time=2026-11-22T12:00:00Z ticktock=false meta=1 partition=16650 sequence=0 likely=true\n" +
			"9q8xk7a2272im222 id96 time=2177-12-19T22:06:37.825032192Z drift=1 node=1153533504 sequence=12483 likely=false\n", 1},
		{"dash among arguments", []string{"inspect", "-layout", "discord", "175928847299117063", "-"}, "175928847299117063\n",
			"175928847299117063 id64 layout=discord time=2016-04-30T11:18:25.796Z tick=41944705796 datacenter=1 worker=0 sequence=7\n" +
				"175928847299117063 id64 layout=discord time=2016-04-30T11:18:25.796Z tick=41944705796 datacenter=1 worker=0 sequence=7\n", 0},
		{"empty input", []string{"inspect"}, "", "", 0},
		{"json", []string{"inspect", "-o", "json", "-"}, input,
			`{"id":"1599182356107579392","format":"id64","layout":"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z","time":"2022-12-03T23:22:39.724Z","tick":381274785067,"datacenter":14,"worker":21,"node":469,"sequence":0,"likely":true}` + "\n" +
				`{"id":"9q8xk7a2272im222","format":"id80","time":"2026-11-22T12:00:00Z","timestamp":133261200000,"ticktock":false,"meta":1,"partition":16650,"sequence":0,"likely":true}` + "\n" +
				`{"id":"9q8xk7a2272im222","format":"id96","time":"2177-12-19T22:06:37.825032192Z","tick":50070577986336,"drift":1,"node":1153533504,"sequence":12483,"likely":false}` + "\n" +
				`{"id":"garbage","error":"not an ID of any format: id64: invalid character 'g' at offset 0, want 0-9; id80: invalid length 7, want 16 characters of 2-9 a-x; id96: invalid length 7, want 16 characters of . 0-9 A-Z _ a-z` + noUUID(7) + `"}` + "\n", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			var code int
			withStdin(t, strings.NewReader(tc.in), func() { code = run(tc.args, &out, &errOut) })
			if code != tc.code || out.String() != tc.want {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q", code, out.String(), errOut.String(), tc.code, tc.want)
			}
		})
	}
}

// lineReader hands out its lines one Read at a time and reports, through
// reads, each line it hands out, so a test can see output arrive before the
// input ends.
type lineReader struct {
	lines []string
	reads chan<- int
	n     int
}

func (r *lineReader) Read(p []byte) (int, error) {
	if r.n == len(r.lines) {
		return 0, io.EOF
	}
	r.reads <- r.n
	n := copy(p, r.lines[r.n])
	r.n++
	return n, nil
}

// syncWriter is a bytes.Buffer that reports each write.
type syncWriter struct {
	bytes.Buffer
	writes chan<- string
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.writes <- string(p)
	return w.Buffer.Write(p)
}

func TestInspect_Streams(t *testing.T) {
	reads, writes := make(chan int), make(chan string)
	in := &lineReader{lines: []string{"1599182356107579392\n", "175928847299117063\n"}, reads: reads}
	out := &syncWriter{writes: writes}
	saved := stdin
	stdin = in
	defer func() { stdin = saved }()
	done := make(chan int)
	go func() { done <- run([]string{"inspect", "-o", "json"}, out, io.Discard) }()
	if got := <-reads; got != 0 {
		t.Fatalf("read line %d first", got)
	}
	// The first ID is printed before the second line is read.
	if got := <-writes; !strings.Contains(got, `"id":"1599182356107579392"`) {
		t.Fatalf("first write %q, want the first ID's reading", got)
	}
	if got := <-reads; got != 1 {
		t.Fatalf("read line %d second", got)
	}
	if got := <-writes; !strings.Contains(got, `"id":"175928847299117063"`) {
		t.Fatalf("second write %q, want the second ID's reading", got)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r readingJSON
	dec := json.NewDecoder(&out.Buffer)
	for dec.More() {
		if err := dec.Decode(&r); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInspect_LineTooLong(t *testing.T) {
	var out, errOut bytes.Buffer
	var code int
	withStdin(t, strings.NewReader("1\n"+strings.Repeat("2", maxLine+1)+"\n3\n"), func() { code = run([]string{"inspect"}, &out, &errOut) })
	if code != 1 || !strings.Contains(errOut.String(), "line 2 is longer than") || !strings.HasPrefix(out.String(), "1 id64") {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, the first ID and an error about line 2", code, out.String(), errOut.String())
	}
}

func TestInspector_Rank(t *testing.T) {
	// 9q8xk7a2272im222 is an id80 of 2026-11-22T12:00:00Z and an id96 of
	// 2177-12-19.
	const text = "9q8xk7a2272im222"
	id80Time := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		now    time.Time
		format string
		want   []string // formats, in order
		likely bool     // the first reading is likely
	}{
		{"id80 in the past", id80Time.Add(time.Hour * 24), "", []string{"id80", "id96"}, true},
		{"id80 just ahead of the clock", id80Time.Add(-time.Minute), "", []string{"id80", "id96"}, true},
		{"both in the future", id80Time.Add(-48 * time.Hour), "", []string{"id80", "id96"}, false},
		{"both in the past, id96 nearer", time.Date(2178, 1, 1, 0, 0, 0, 0, time.UTC), "", []string{"id96", "id80"}, true},
		{"id96 chosen", id80Time.Add(time.Hour * 24), "id96", []string{"id96"}, false},
		{"id80 chosen", id80Time.Add(time.Hour * 24), "id80", []string{"id80"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := inspector{layout: id64.Twitter, label: "twitter", format: tc.format, now: func() time.Time { return tc.now }}
			found, err := in.inspect(text)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, r := range found {
				got = append(got, r.json.Format)
				if want := i == 0 && tc.likely; r.likely != want || r.json.Likely != want {
					t.Errorf("reading %d (%s) likely %t, want %t", i, r.json.Format, r.likely, want)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("readings %v, want %v", got, tc.want)
			}
		})
	}
}

// TestInspect_RedisgenIDs decodes IDs that floe redis get made, with the
// layout named redisgen: their time is the time they were made.
func TestInspect_RedisgenIDs(t *testing.T) {
	srv := redistest.Start(t)
	var out, errOut bytes.Buffer
	if code := run([]string{"redis", "init", "--shard", "5", "--addr", srv.Addr}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	before := time.Now().Truncate(time.Millisecond)
	if code := run([]string{"redis", "get", "-n", "3", "--addr", srv.Addr}, &out, &errOut); code != 0 {
		t.Fatalf("get: exit %d: %s", code, errOut.String())
	}
	after := time.Now()
	ids := strings.Fields(out.String())
	for i, r := range inspectJSON(t, "redisgen", ids) {
		id := ids[i]
		// Redis runs on this machine, so its clock is this one.
		at, err := time.Parse(time.RFC3339Nano, r.Time)
		if err != nil || r.ID != id || at.Before(before) || at.After(after) || *r.Worker != 5 {
			t.Errorf("%s decodes as %+v, want time in %v..%v and worker 5", id, r, before, after)
		}
	}

	// IDs made in another layout, written out, read by its preset name. A
	// layout keeps its own keys: Redis refuses to mix two on one state key.
	if code := run([]string{"redis", "init", "--shard", "5", "-prefix", "icy:", "--addr", srv.Addr}, &out, &errOut); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut.String())
	}
	out.Reset()
	before = time.Now().Truncate(time.Millisecond)
	if code := run([]string{"redis", "get", "-n", "2", "-prefix", "icy:", "-layout", "41t/10w/12s 1ms since 1455788600316", "--addr", srv.Addr}, &out, &errOut); code != 0 {
		t.Fatalf("get -layout: exit %d: %s", code, errOut.String())
	}
	after = time.Now()
	ids = strings.Fields(out.String())
	for i, r := range inspectJSON(t, "icicle2", ids) {
		id := ids[i]
		at, err := time.Parse(time.RFC3339Nano, r.Time)
		if err != nil || r.ID != id || at.Before(before) || at.After(after) || *r.Worker != 5 {
			t.Errorf("%s decodes as %+v, want time in %v..%v and worker 5", id, r, before, after)
		}
	}
	if want := redisgen.DefaultLayout; !want.Equal(id64.Redisgen) {
		t.Errorf("redisgen.DefaultLayout is %v, want the redisgen preset %v", want, id64.Redisgen)
	}
}

func TestInspect_Help(t *testing.T) {
	var out, errOut bytes.Buffer
	code := run([]string{"inspect", "-h"}, &out, &errOut)
	for _, want := range []string{"icicle (icicle 1.x)", "icicle2 (icicle 2.x)", "redisgen", `"41t/10w/12s 1ms since 2016-02-18"`, "reads IDs from stdin", "-o", "id128", "version 7", "-format uuid"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("floe inspect -h lacks %q:\n%s", want, errOut.String())
		}
	}
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// inspectJSON runs floe inspect -o json on ids in layout and returns one
// reading of each.
func inspectJSON(t *testing.T, layout string, ids []string) []readingJSON {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(append([]string{"inspect", "-o", "json", "-layout", layout}, ids...), &out, &errOut); code != 0 {
		t.Fatalf("inspect: exit %d: %s", code, errOut.String())
	}
	dec := json.NewDecoder(&out)
	readings := make([]readingJSON, len(ids))
	for i := range readings {
		if err := dec.Decode(&readings[i]); err != nil {
			t.Fatalf("inspect -o json, reading %d: %v", i, err)
		}
	}
	return readings
}
