//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/promtest"
)

// TestE2E_PromtoolCheckMetrics lints floed's /metrics, after traffic of
// every kind, with promtool: no finding.
func TestE2E_PromtoolCheckMetrics(t *testing.T) {
	promtool := promtest.Tool(t, "promtool")
	f := startFloedEnv(t, []string{"FLOE_TOKEN=secret"})
	c, err := dialNoeq(f.Bin, "secret")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := fetch(c, 3, 255); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/ids?n=5", "/v1/ids?n=0", "/v1/ids?seq=nope", "/v1/sequences", "/readyz"} {
		f.mustGet(path, "Authorization", "Bearer secret")
	}
	f.mustGet("/v1/ids") // no token: unauthorized
	if err := sendClosed(f.Bin, "wrong", requests(1), 5*time.Second); err != nil {
		t.Fatalf("a wrong token: %v", err)
	}
	code, body := f.mustGet("/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}

	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	out, err := cmd.CombinedOutput()
	if got := strings.TrimSpace(string(out)); err != nil || got != "" {
		t.Errorf("promtool check metrics: %v, findings:\n%s", err, got)
	}
}

// TestE2E_PrometheusScrape has a real Prometheus scrape floed every second
// and checks what its query API says against what the test itself did and
// read: rate() of the IDs issued between two scrapes, and the reservation
// headroom.
func TestE2E_PrometheusScrape(t *testing.T) {
	promtest.Tool(t, "prometheus")
	// A window of five minutes keeps the reservation where it is for the
	// whole test: the keeper next writes after more than two minutes.
	f := startFloed(t, "--reserve-window", "5m")
	// IDs before the first scrape, so that every sample counts some.
	const before, between = 10, 500
	issue(t, f, before)
	reserved := reservedTime(t, f)

	p := promtest.Start(t, f.HTTP)
	const issued = `floe_ids_generated_total{job="floed",seq="default"}`
	samples := func() []promtest.Sample {
		t.Helper()
		s, err := p.Query(issued+"[5m]", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var first []promtest.Sample
	if !waitFor(time.Minute, func() bool { first = samples(); return len(first) > 0 }) {
		t.Fatalf("no scrape of floed within a minute")
	}
	issue(t, f, between)
	var all []promtest.Sample
	if !waitFor(time.Minute, func() bool { all = samples(); return len(all) > 0 && all[len(all)-1].Value == before+between }) {
		t.Fatalf("no scrape saw the %d IDs issued within a minute: samples %v", before+between, all)
	}
	// The last sample before the IDs issued in between, and the first
	// after them all.
	var s1, s2 promtest.Sample
	for _, s := range all {
		switch s.Value {
		case before:
			s1 = s
		case before + between:
			if s2.Time.IsZero() {
				s2 = s
			}
		default:
			// A scrape in the middle of the request: rate() reads the
			// first and last samples of its range only.
			if s.Value < before || s.Value > before+between {
				t.Fatalf("a sample of %v IDs issued, want %d to %d: %v", s.Value, before, before+between, all)
			}
		}
	}
	if s1.Time.IsZero() {
		t.Fatalf("no sample of the first %d IDs: %v", before, all)
	}

	// rate() over a range from just before s1 to s2, evaluated at s2, is
	// the increase between the two samples over the time between them:
	// no extrapolation past s2, and the 1 ms before s1 extrapolated at
	// that same rate.
	span := s2.Time.Sub(s1.Time)
	rate := query(t, p, fmt.Sprintf("rate(%s[%dms])", issued, span.Milliseconds()+1), s2.Time)
	headroom := query(t, p, `floe_reservation_headroom_seconds{job="floed",seq="default"}`, s2.Time)
	direct := f.metrics()
	readAt := time.Now()
	up := query(t, p, `up{job="floed"}`, s2.Time)

	tests := []struct {
		name      string
		got, want float64
		tolerance float64
	}{
		{"rate of the ids issued between two scrapes", rate, between / span.Seconds(), 1e-9 * between / span.Seconds()},
		// The scrape reads the clock a little after its timestamp.
		{"headroom scraped against the reservation of /v1/sequences", headroom, reserved.Sub(s2.Time).Seconds(), 1},
		{"headroom read directly against the reservation", direct[`floe_reservation_headroom_seconds{seq="default"}`], reserved.Sub(readAt).Seconds(), 1},
		{"ids issued read directly", direct[`floe_ids_generated_total{format="id64",seq="default"}`], before + between, 0},
		{"target up", up, 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if math.Abs(tc.got-tc.want) > tc.tolerance {
				t.Errorf("got %v, want %v (± %v)", tc.got, tc.want, tc.tolerance)
			}
			t.Logf("got %v, want %v", tc.got, tc.want)
		})
	}
	if got := reservedTime(t, f); !got.Equal(reserved) {
		t.Fatalf("the reservation moved during the test, from %v to %v: the headroom compared is not the one scraped", reserved, got)
	}
}

// issue fetches n IDs from f in one HTTP request.
func issue(t *testing.T, f *floed, n int) {
	t.Helper()
	code, body := f.mustGet(fmt.Sprintf("/v1/ids?n=%d", n))
	if code != http.StatusOK {
		t.Fatalf("GET /v1/ids?n=%d: %d %s", n, code, body)
	}
}

// reservedTime returns the end of the default sequence's reservation, from
// /v1/sequences.
func reservedTime(t *testing.T, f *floed) time.Time {
	t.Helper()
	code, body := f.mustGet("/v1/sequences")
	var list struct {
		Sequences []struct {
			Name         string    `json:"name"`
			ReservedTime time.Time `json:"reserved_time"`
		} `json:"sequences"`
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(body))).Decode(&list); code != http.StatusOK || err != nil {
		t.Fatalf("GET /v1/sequences: %d %v %s", code, err, body)
	}
	for _, s := range list.Sequences {
		if s.Name == "default" && !s.ReservedTime.IsZero() {
			return s.ReservedTime
		}
	}
	t.Fatalf("no reservation of the default sequence in /v1/sequences: %s", body)
	return time.Time{}
}

// query returns the single value of expr at time at.
func query(t *testing.T, p *promtest.Server, expr string, at time.Time) float64 {
	t.Helper()
	s, err := p.Query(expr, at)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 1 {
		t.Fatalf("%s at %v: %d samples %v, want 1", expr, at, len(s), s)
	}
	return s[0].Value
}
