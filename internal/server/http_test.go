package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe/floetest"
	"github.com/floeid/floe/id128"
	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/id80"
	"github.com/floeid/floe/id96"
)

func newHTTPServer(t *testing.T, reg *prometheus.Registry) *httptest.Server {
	t.Helper()
	s, _ := newTestServer(t, Config{Clock: floetest.NewClock(start), Registry: reg, Version: "v1.2.3", Revision: "3b95ecd4d790", Sequences: []SequenceConfig{
		{Name: "default", Worker: 5},
		{Name: "sno", Format: Format80, Node: 9},
		{Name: "guid", Format: Format96, Node: 9},
		{Name: "uuid", Format: Format128, Node: 9},
		{Name: "private", Worker: 6, Tokens: []string{"secret"}},
		{Name: "discord", Layout: id64.Discord, Worker: 7},
	}})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return hs
}

func httpGet(t *testing.T, url string, header ...string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}

func TestHandler_IDs(t *testing.T) {
	hs := newHTTPServer(t, nil)
	tests := []struct {
		name   string
		query  string
		header []string
		status int
		count  int
		parse  func(string) error
	}{
		{"one by default", "", nil, 200, 1, parse64},
		{"ten", "?n=10", nil, 200, 10, parse64},
		{"id80", "?n=3&seq=sno", nil, 200, 3, func(s string) error { _, err := id80.Parse(s); return err }},
		{"id96", "?n=3&seq=guid", nil, 200, 3, func(s string) error { _, err := id96.Parse(s); return err }},
		{"id128", "?n=3&seq=uuid", nil, 200, 3, parse128},
		{"token", "?n=2&seq=private", []string{"Authorization", "Bearer secret"}, 200, 2, parse64},
		{"no token", "?seq=private", nil, 401, 0, nil},
		{"wrong token", "?seq=private", []string{"Authorization", "Bearer nope"}, 401, 0, nil},
		{"unknown sequence", "?seq=nope", nil, 404, 0, nil},
		{"n zero", "?n=0", nil, 400, 0, nil},
		{"n too large", "?n=1001", nil, 400, 0, nil},
		{"n not a number", "?n=ten", nil, 400, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, ctype, body := httpGet(t, hs.URL+"/v1/ids"+tc.query, tc.header...)
			if status != tc.status {
				t.Fatalf("status %d (%s), want %d", status, body, tc.status)
			}
			if ctype != "application/json" {
				t.Errorf("content type %q", ctype)
			}
			if status != 200 {
				var e httpError
				if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error == "" || e.Code == "" {
					t.Errorf("error body %q: want JSON with error and code", body)
				}
				return
			}
			var got struct {
				Seq    string   `json:"seq"`
				Format string   `json:"format"`
				IDs    []string `json:"ids"`
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			if len(got.IDs) != tc.count || got.Seq == "" || got.Format == "" {
				t.Fatalf("body %q: want %d IDs", body, tc.count)
			}
			for _, id := range got.IDs {
				if err := tc.parse(id); err != nil {
					t.Error(err)
				}
			}
			if err := floetest.Unique(got.IDs); err != nil {
				t.Error(err)
			}
		})
	}
}

func parse64(s string) error { _, err := id64.Parse(s); return err }

// parse128 checks that s is the canonical text of an id128 ID of worker 9.
func parse128(s string) error {
	id, err := id128.Parse(s)
	if err != nil {
		return err
	}
	if id.String() != s || id.Worker() != 9 {
		return fmt.Errorf("%s: want the canonical text of an ID of worker 9, got worker %d", s, id.Worker())
	}
	return nil
}

// TestHandler_IDsLong: long replies of id64 IDs, in one run of a tick
// (written in two parts, their length known first) or not (the sequence
// above the node, so that IDs step by more than one; or a reply of each
// length below and above the parts' threshold), have the Content-Length
// of their body, which is the IDs' plain text byte for byte.
func TestHandler_IDsLong(t *testing.T) {
	s, _ := newTestServer(t, Config{Clock: floetest.NewClock(start), MaxHTTPCount: 4000, Sequences: []SequenceConfig{
		{Name: "wide", Layout: benchWideLayout, Worker: 1},
		{Name: "sony", Layout: id64.Layout{Epoch: start.Add(-time.Hour), Unit: 10 * time.Millisecond, TimeBits: 39, WorkerBits: 16, SequenceBits: 8, Order: id64.TimeSequenceNode}, Worker: 3},
	}})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		seq string
		n   int
	}{
		{"wide", streamIDs - 1}, {"wide", streamIDs}, {"wide", 1000}, {"wide", 4000}, {"wide", 1000}, {"sony", 200},
	} {
		for _, text := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/n=%d/text=%v", tc.seq, tc.n, text), func(t *testing.T) {
				req, err := http.NewRequest("GET", fmt.Sprintf("%s/v1/ids?seq=%s&n=%d", hs.URL, tc.seq, tc.n), nil)
				if err != nil {
					t.Fatal(err)
				}
				if text {
					req.Header.Set("Accept", "text/plain")
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				body := string(b)
				if resp.StatusCode != 200 || resp.ContentLength != int64(len(body)) {
					t.Fatalf("status %d, Content-Length %d, a body of %d bytes: %.200q", resp.StatusCode, resp.ContentLength, len(body), body)
				}
				var ids []string
				if text {
					ids = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
				} else {
					var got struct{ IDs []string }
					if err := json.Unmarshal(b, &got); err != nil {
						t.Fatalf("%v: %.200q", err, body)
					}
					ids = got.IDs
				}
				if len(ids) != tc.n {
					t.Fatalf("%d IDs, want %d", len(ids), tc.n)
				}
				var want strings.Builder
				if !text {
					want.WriteString(`{"seq":"` + tc.seq + `","format":"id64","ids":[`)
				}
				var prev uint64
				for i, id := range ids {
					v, err := id64.Parse(id)
					if err != nil {
						t.Fatal(err)
					}
					if i > 0 && uint64(v) <= prev {
						t.Fatalf("ID %d, %d, after %d", i, v, prev)
					}
					prev = uint64(v)
					switch {
					case text:
						want.WriteString(id + "\n")
					case i > 0:
						want.WriteString(`,"` + id + `"`)
					default:
						want.WriteString(`"` + id + `"`)
					}
				}
				if !text {
					want.WriteString("]}\n")
				}
				if body != want.String() {
					t.Errorf("got %.300q..., want %.300q...", body, want.String())
				}
			})
		}
	}
}

func TestHandler_IDsText(t *testing.T) {
	hs := newHTTPServer(t, nil)
	status, ctype, body := httpGet(t, hs.URL+"/v1/ids?n=4", "Accept", "text/plain")
	lines := strings.Fields(body)
	if status != 200 || !strings.HasPrefix(ctype, "text/plain") || len(lines) != 4 || !strings.HasSuffix(body, "\n") {
		t.Fatalf("status %d, type %q, body %q", status, ctype, body)
	}
	for _, l := range lines {
		if err := parse64(l); err != nil {
			t.Error(err)
		}
	}
}

func TestHandler_Inspect(t *testing.T) {
	hs := newHTTPServer(t, nil)
	id, _ := id64.Twitter.Compose(id64.Parts{Time: start, Datacenter: 1, Worker: 2, Sequence: 3})
	g128, err := id128.NewGenerator(id128.Config{Worker: 9, Clock: floetest.NewClock(start)})
	if err != nil {
		t.Fatal(err)
	}
	u, err := g128.Next()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		status     int
		want       []string
	}{
		{"id64", "/v1/inspect/" + id.String(), 200, []string{`"worker":2`, `"datacenter":1`, `"sequence":3`, `"time":"2026-11-22T12:00:00Z"`, `"format":"id64"`}},
		{"id80", "/v1/inspect/" + id80.MustParse("9q8xk7a2272im222").String() + "?seq=sno", 200, []string{`"format":"id80"`, `"time":"2026-11-22T12:00:00Z"`}},
		{"id128", "/v1/inspect/" + u.String() + "?seq=uuid", 200, []string{`"format":"id128"`, `"id":"` + u.String() + `"`, `"time":"2026-11-22T12:00:00Z"`, `"tick":1795348800000`, `"counter":0`, `"worker":9`}},
		{"id128 in upper case and braces", "/v1/inspect/{" + strings.ToUpper(u.String()) + "}?seq=uuid", 200, []string{`"id":"` + u.String() + `"`, `"worker":9`}},
		{"a version-4 UUID on an id128 sequence", "/v1/inspect/f47ac10b-58cc-4372-a567-0e02b2c3d479?seq=uuid", 400, []string{`"code":"bad_request"`, `UUID version 4, want version 7`}},
		{"layout on an id128 sequence", "/v1/inspect/" + u.String() + "?seq=uuid&layout=twitter", 400, []string{`layout is for id64 sequences only; sequence uuid is id128`}},
		{"garbage", "/v1/inspect/xyz", 400, []string{`"code":"bad_request"`}},
		{"top bit on a signed layout", "/v1/inspect/9223372036854775808", 400, []string{`"code":"bad_request"`, `9223372036854775808 has the top bit set`}},
		{"largest uint64 on a signed layout", "/v1/inspect/18446744073709551615", 400, []string{`"code":"bad_request"`, `out of the layout's range`}},
		{"top bit on an unsigned layout", "/v1/inspect/9223372036854775808?seq=discord", 200, []string{`"tick":2199023255552`, `"time":"2084-09-06T15:47:35.552Z"`, `"worker":0`}},
		{"negative BIGINT of a layout that uses the top bit", "/v1/inspect/-8292456368057609209?layout=instagram", 200, []string{`"id":"10154287705651942407"`, `"time":"2050-01-02T03:04:05.006Z"`, `"worker":5`, `"sequence":7`}},
		{"negative on a signed layout", "/v1/inspect/-1", 400, []string{`"code":"bad_request"`, `-1 is negative, and the layout`}},
		{"unknown sequence", "/v1/inspect/1?seq=nope", 404, []string{`"code":"unknown_sequence"`}},
		{"layout by name", "/v1/inspect/143322835047240136?layout=icicle2", 200, []string{`"time":"2017-03-19T21:37:07Z"`, `"worker":789`, `"sequence":456`, `"layout":"41t/10w/12s 1ms since 2016-02-18T09:43:20.316Z"`}},
		{"layout written out", "/v1/inspect/175928847299117063?layout=" + url.QueryEscape("42t/5d/5w/12s 1ms since 2015-01-01 unsigned"), 200, []string{`"time":"2016-04-30T11:18:25.796Z"`, `"datacenter":1`, `"sequence":7`}},
		{"redisgen layout", "/v1/inspect/1652854943121428480?layout=redisgen", 200, []string{`"time":"2026-11-22T12:00:00Z"`, `"worker":5`}},
		{"top bit on a signed layout written out", "/v1/inspect/9223372036854775808?layout=" + url.QueryEscape("41t/10w/12s 1ms since 2016-02-18"), 400, []string{`has the top bit set`}},
		{"malformed layout", "/v1/inspect/1?layout=" + url.QueryEscape("41t/10w/12s 1ms"), 400, []string{`"code":"bad_request"`, `layout: floe: malformed layout`}},
		{"unknown layout", "/v1/inspect/1?layout=nope", 400, []string{`"code":"bad_request"`, `unknown layout`}},
		{"time past the year 9999", "/v1/inspect/18446744073709551615?layout=" + url.QueryEscape("48t/16s 1ms since 1970-01-01 unsigned"), 200, []string{`"time":"10889-08-02T05:31:50.655Z","tick":281474976710655,`, `"sequence":65535`}},
		{"layout on an id80 sequence", "/v1/inspect/9q8xk7a2272im222?seq=sno&layout=twitter", 400, []string{`"code":"bad_request"`, `layout is for id64 sequences only`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := httpGet(t, hs.URL+tc.path)
			if status != tc.status {
				t.Fatalf("status %d (%s), want %d", status, body, tc.status)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("body %s lacks %s", body, w)
				}
			}
		})
	}
}

func TestHandler_HealthAndMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	hs := newHTTPServer(t, reg)
	httpGet(t, hs.URL+"/v1/ids?n=7")
	for _, path := range []string{"/healthz", "/readyz"} {
		if status, _, body := httpGet(t, hs.URL+path); status != 200 {
			t.Errorf("%s: %d %s", path, status, body)
		}
	}
	status, _, body := httpGet(t, hs.URL+"/v1/sequences")
	if status != 200 || !strings.Contains(body, `"name":"private"`) || !strings.Contains(body, `"auth":true`) ||
		!strings.Contains(body, `"definition":"id64 layout=\"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z\" datacenter=0 worker=5"`) ||
		!strings.Contains(body, `"definition":"id80 partition=9"`) || !strings.Contains(body, `"definition":"id128 worker=9"`) {
		t.Errorf("/v1/sequences: %d %s", status, body)
	}
	status, _, body = httpGet(t, hs.URL+"/metrics")
	if status != 200 {
		t.Fatalf("/metrics: %d", status)
	}
	for _, want := range []string{
		`floe_ids_generated_total{format="id64",seq="default"} 7`,
		`floe_requests_total{code="ok",op="ids",proto="http"} 1`,
		`floe_clock_regressions_total{policy="wait",seq="default"}`,
		`floe_borrowed_ticks_total{seq="default"}`,
		`floe_reservation_headroom_seconds{seq="default"}`,
		`floe_clock_behind_seconds{seq="default"} 0`,
		`floe_epoch_exhaustion_timestamp_seconds{seq="default"} 3.48785823e+09`, // 2080-07-10
		`floe_epoch_exhaustion_timestamp_seconds{seq="guid"} 1.8446744073e+10`,  // 2554: 2^64 ns after 1970
		`floe_epoch_exhaustion_timestamp_seconds{seq="uuid"} 2.8147497671e+11`,  // 10889: 2^48 ms after 1970
		`floe_request_batch_size_bucket{proto="http",le="8"} 1`,
		`floe_build_info{goversion="` + runtime.Version() + `",revision="3b95ecd4d790",version="v1.2.3"} 1`,
		`floe_ready 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s in\n%s", want, body)
		}
	}
	if status, _, _ := httpGet(t, hs.URL+"/nope"); status != 404 {
		t.Errorf("unknown path: %d", status)
	}
}

func TestHandler_IDsHead(t *testing.T) {
	s, _ := newTestServer(t, Config{Clock: floetest.NewClock(start), AdminLoopback: true, Sequences: []SequenceConfig{
		{Name: "default", Worker: 5},
		{Name: "private", Worker: 6, Tokens: []string{"secret"}},
	}})
	h := s.Handler()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	head := func(t *testing.T, target string, header ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodHead, hs.URL+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if b, _ := io.ReadAll(resp.Body); len(b) != 0 {
			t.Errorf("a reply to HEAD has the body %q", b)
		}
		return resp
	}
	tests := []struct {
		name   string
		target string
		header []string
		status int
		ctype  string
	}{
		{"json", "/v1/ids?n=1000", nil, 200, "application/json"},
		{"text", "/v1/ids?n=3", []string{"Accept", "text/plain"}, 200, "text/plain; charset=utf-8"},
		{"with a token", "/v1/ids?seq=private", []string{"Authorization", "Bearer secret"}, 200, "application/json"},
		{"n zero", "/v1/ids?n=0", nil, 400, "application/json"},
		{"a bad query", "/v1/ids?n=1&n=1", nil, 400, "application/json"},
		{"unknown sequence", "/v1/ids?seq=nope", nil, 404, "application/json"},
		{"no token", "/v1/ids?seq=private", nil, 401, "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := head(t, tt.target, tt.header...)
			if resp.StatusCode != tt.status || resp.Header.Get("Content-Type") != tt.ctype {
				t.Fatalf("got %d %q, want %d %q", resp.StatusCode, resp.Header.Get("Content-Type"), tt.status, tt.ctype)
			}
		})
	}
	for _, seq := range s.seqs() {
		if got := seq.stats().Issued; got != 0 {
			t.Errorf("sequence %s issued %d IDs for HEAD requests, want 0", seq.name, got)
		}
	}

	t.Run("not ready", func(t *testing.T) {
		if code, body := call(h, http.MethodPost, "/v1/admin/sequences/default/detach", "", loopback, ""); code != http.StatusOK {
			t.Fatalf("detach: %d %s", code, body)
		}
		resp := head(t, "/v1/ids")
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" {
			t.Fatalf("got %d, Retry-After %q; want 503 and 1", resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	})
}

func TestHandler_Range(t *testing.T) {
	hs := newHTTPServer(t, nil)
	tests := []struct {
		name, path string
		status     int
		want       string // the whole body
	}{
		{"one tick", "/v1/range?time=2026-11-22T12:00:00Z", 200,
			`{"seq":"default","format":"id64","layout":"41t/5d/5w/12s 1ms since 2010-11-04T01:42:54.657Z","first":"2124472963691446272","last":"2124472963695640575","from":"2026-11-22T12:00:00Z","until":"2026-11-22T12:00:00.001Z"}` + "\n"},
		{"a day of sonyflake", "/v1/range?time=2026-11-22&to=2026-11-22T23:59:59.999Z&layout=sonyflake", 200,
			`{"seq":"default","format":"id64","layout":"39t/8s/16w 10ms since 2014-09-01T00:00:00Z","first":"647224727961600000","last":"647369683107839999","from":"2026-11-22T00:00:00Z","until":"2026-11-23T00:00:00Z"}` + "\n"},
		{"the sequence's layout", "/v1/range?time=2026-11-22T12:00:00Z&seq=discord", 200,
			`{"seq":"discord","format":"id64","layout":"42t/5d/5w/12s 1ms since 2015-01-01T00:00:00Z unsigned","first":"1574031694233600000","last":"1574031694237794303","from":"2026-11-22T12:00:00Z","until":"2026-11-22T12:00:00.001Z"}` + "\n"},
		{"no time", "/v1/range", 400, `{"error":"time is missing: give the time whose IDs you want, as RFC 3339 (2026-11-22T12:00:00Z) or a date (2026-11-22)","code":"bad_request"}` + "\n"},
		{"bad time", "/v1/range?time=noon", 400, `{"error":"time \"noon\" is not an RFC 3339 time (2026-11-22T12:00:00Z) or a date (2026-11-22)","code":"bad_request"}` + "\n"},
		{"bad to", "/v1/range?time=2026-11-22&to=1", 400, `{"error":"to \"1\" is not an RFC 3339 time (2026-11-22T12:00:00Z) or a date (2026-11-22)","code":"bad_request"}` + "\n"},
		{"before the epoch", "/v1/range?time=2025-01-01&layout=js53", 400, `{"error":"floe: time is before the layout epoch: 2025-01-01T00:00:00Z (the epoch is 2026-01-01T00:00:00Z, the end 2095-09-07T15:47:35.552Z)","code":"bad_request"}` + "\n"},
		{"to before time", "/v1/range?time=2026-11-22&to=2026-11-21", 400, `{"error":"floe: time range ends before it starts: 2026-11-21T00:00:00Z is before 2026-11-22T00:00:00Z","code":"bad_request"}` + "\n"},
		{"time twice", "/v1/range?time=2026-11-22&time=2026-11-23", 400, ""},
		{"unknown parameter", "/v1/range?time=2026-11-22&n=3", 400, ""},
		{"bad layout", "/v1/range?time=2026-11-22&layout=flake", 400, ""},
		{"id80 sequence", "/v1/range?time=2026-11-22&seq=sno", 400, `{"error":"range is for id64 sequences only; sequence sno is id80","code":"bad_request"}` + "\n"},
		{"unknown sequence", "/v1/range?time=2026-11-22&seq=nope", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, _, body := httpGet(t, hs.URL+tc.path)
			if status != tc.status || tc.want != "" && body != tc.want {
				t.Errorf("status %d, body %s; want %d, %s", status, body, tc.status, tc.want)
			}
			if status == 400 && !strings.Contains(body, `"code":"bad_request"`) {
				t.Errorf("body %s, want the code bad_request", body)
			}
		})
	}
}
