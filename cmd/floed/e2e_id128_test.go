//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/floeid/floe/id128"
)

// TestE2E_ID128: an id128 sequence (--seq name=id128) serves version-7
// UUIDs over HTTP, in their canonical text, with the node's worker in
// their worker field; the binary protocol, 64 bits wide, refuses it.
func TestE2E_ID128(t *testing.T) {
	f := startFloed(t, "-w", "5", "-d", "1", "--seq", "events=id128", "--token", "events=uuid-token")
	bearer := []string{"Authorization", "Bearer uuid-token"}
	code, body := f.mustGet("/v1/ids?n=50&seq=events", bearer...)
	if code != http.StatusOK {
		t.Fatalf("GET /v1/ids: %d %s", code, body)
	}
	var reply struct {
		Format string   `json:"format"`
		IDs    []string `json:"ids"`
	}
	if err := json.Unmarshal([]byte(body), &reply); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	if reply.Format != "id128" || len(reply.IDs) != 50 {
		t.Fatalf("GET /v1/ids: %s, want 50 id128 IDs", body)
	}
	now := time.Now()
	var prev id128.ID
	for i, s := range reply.IDs {
		id, err := id128.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if id.String() != s {
			t.Errorf("ID %q is not in canonical text %q", s, id.String())
		}
		if id.Worker() != 1<<8|5 {
			t.Errorf("ID %s: worker %d, want %d (datacenter<<8|worker)", s, id.Worker(), 1<<8|5)
		}
		if d := id.Time().Sub(now); d < -5*time.Second || d > 5*time.Second {
			t.Errorf("ID %s: time %v is %v from now", s, id.Time(), d)
		}
		if i > 0 && prev.Compare(id) >= 0 {
			t.Errorf("ID %s does not follow %s", s, prev)
		}
		prev = id
	}
	code, body = f.mustGet("/v1/inspect/"+reply.IDs[0]+"?seq=events", bearer...)
	if code != http.StatusOK {
		t.Fatalf("GET /v1/inspect: %d %s", code, body)
	}
	var insp struct {
		Format string `json:"format"`
		Parts  struct {
			ID     string `json:"id"`
			Worker uint16 `json:"worker"`
		} `json:"parts"`
	}
	if err := json.Unmarshal([]byte(body), &insp); err != nil || insp.Format != "id128" || insp.Parts.ID != reply.IDs[0] || insp.Parts.Worker != 261 {
		t.Errorf("GET /v1/inspect: %s (%v)", body, err)
	}
	if err := sendClosed(f.Bin, "uuid-token", requests(1), 10*time.Second); err != nil {
		t.Errorf("binary connection for the id128 sequence: %v", err)
	}
}
