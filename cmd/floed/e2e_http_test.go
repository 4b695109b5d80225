package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestE2E_OptionsAsterisk sends a raw "OPTIONS *" to floed's HTTP port: it
// gets 405 method_not_allowed, as docs/http.md says of every method a path
// does not answer, not net/http's own 200 with an empty body.
func TestE2E_OptionsAsterisk(t *testing.T) {
	f := startFloed(t)
	c, err := net.DialTimeout("tcp", f.HTTP, dialTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c, "OPTIONS * HTTP/1.1\r\nHost: floed\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodOptions})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct{ Code string }
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Errorf("OPTIONS *: %s, with a body that is not a JSON error: %v", resp.Status, err)
	}
	if resp.StatusCode != http.StatusMethodNotAllowed || body.Code != "method_not_allowed" {
		t.Errorf("OPTIONS *: %s with code %q, want 405 method_not_allowed", resp.Status, body.Code)
	}
	if _, ok := resp.Header["Allow"]; !ok {
		t.Error("OPTIONS *: no Allow header, which a 405 must carry")
	}
}
