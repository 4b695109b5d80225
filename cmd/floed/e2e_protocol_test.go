//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestE2E_Protocol(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  string
	}{
		{"noeq token", "NOEQ_TOKEN"},
		{"floe token", "FLOE_TOKEN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const token = "s3cret-token"
			f := startFloedEnv(t, []string{tc.env + "=" + token}, "-w", "5", "-d", "3")
			var all []uint64

			c, err := dialNoeq(f.Bin, token)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			for round := 0; round < 3; round++ {
				ids, err := fetch(c, 1, 7, 255)
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				if len(ids) != 263 {
					t.Fatalf("got %d IDs, want 263", len(ids))
				}
				all = append(all, ids...)
			}
			checkIncreasing(t, "one connection", all)
			now := time.Now()
			for _, id := range all {
				p := decodeTwitter(id)
				if p.Worker != 5 || p.Datacenter != 3 {
					t.Fatalf("ID %d: worker %d datacenter %d, want 5 and 3", id, p.Worker, p.Datacenter)
				}
				if d := p.Time.Sub(now); d < -5*time.Second || d > 5*time.Second {
					t.Fatalf("ID %d: time %v is %v from now", id, p.Time, d)
				}
			}

			// Without the token the connection is closed.
			if err := sendClosed(f.Bin, "", requests(1), 10*time.Second); err != nil {
				t.Errorf("no auth frame: %v", err)
			}

			// HTTP: the sequence's token is a bearer token.
			bearer := []string{"Authorization", "Bearer " + token}
			if code, body := f.mustGet("/v1/ids?n=3"); code != http.StatusUnauthorized {
				t.Errorf("GET /v1/ids without a token: %d %s, want 401", code, body)
			}
			code, body := f.mustGet("/v1/ids?n=3", bearer...)
			if code != http.StatusOK {
				t.Fatalf("GET /v1/ids?n=3: %d %s", code, body)
			}
			var reply struct {
				Seq    string            `json:"seq"`
				Format string            `json:"format"`
				IDs    []json.RawMessage `json:"ids"`
			}
			if err := json.Unmarshal([]byte(body), &reply); err != nil {
				t.Fatalf("GET /v1/ids?n=3: %v in %s", err, body)
			}
			if len(reply.IDs) != 3 || reply.Format != "id64" {
				t.Fatalf("GET /v1/ids?n=3: %s", body)
			}
			var fromHTTP []uint64
			for _, raw := range reply.IDs {
				var s string
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatalf("ID %s is not a JSON string", raw)
				}
				id, err := strconv.ParseUint(s, 10, 64)
				if err != nil {
					t.Fatalf("ID %q: %v", s, err)
				}
				fromHTTP = append(fromHTTP, id)
			}
			code, body = f.mustGet("/v1/ids?n=3", append(bearer, "Accept", "text/plain")...)
			if code != http.StatusOK {
				t.Fatalf("GET /v1/ids?n=3 as text: %d %s", code, body)
			}
			lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
			if len(lines) != 3 {
				t.Fatalf("text reply %q: want 3 lines", body)
			}
			for _, l := range lines {
				id, err := strconv.ParseUint(l, 10, 64)
				if err != nil {
					t.Fatalf("text line %q: %v", l, err)
				}
				fromHTTP = append(fromHTTP, id)
			}
			all = append(all, fromHTTP...)
			// One generator: later requests get higher IDs.
			checkIncreasing(t, "binary then HTTP", all)
			checkUnique(t, all)

			code, body = f.mustGet("/v1/inspect/"+strconv.FormatUint(fromHTTP[0], 10), bearer...)
			if code != http.StatusOK {
				t.Fatalf("GET /v1/inspect: %d %s", code, body)
			}
			var inspect struct {
				Parts struct {
					Worker     uint64 `json:"worker"`
					Datacenter uint64 `json:"datacenter"`
				} `json:"parts"`
			}
			if err := json.Unmarshal([]byte(body), &inspect); err != nil {
				t.Fatalf("inspect %s: %v", body, err)
			}
			if inspect.Parts.Worker != 5 || inspect.Parts.Datacenter != 3 {
				t.Errorf("inspect: %s, want worker 5 datacenter 3", body)
			}
			t.Logf("%d IDs checked", len(all))
		})
	}
}
