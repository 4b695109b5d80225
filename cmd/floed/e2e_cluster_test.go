//go:build unix

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/internal/redistest"
)

// admin sends an admin request to f with the admin token adminToken and
// returns the status and body.
func (f *floed) admin(method, path, body string) (int, string) {
	f.t.Helper()
	req, err := http.NewRequest(method, "http://"+f.HTTP+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := httpClient.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// adminToken is the admin token of the cluster tests' nodes.
const adminToken = "e2e-admin"

// safeRedis starts a Redis server that passes floed's safety check.
func safeRedis(t *testing.T) *redistest.Server {
	t.Helper()
	return redistest.Start(t, "--appendonly", "yes", "--appendfsync", "always")
}

// TestE2E_CatalogTokens: a sequence created at runtime with a token (its
// hash in the catalog) serves binary clients with that token on a node
// that attaches it, and floed --token may name such a sequence (not in
// --seq) for a token of the node's own.
func TestE2E_CatalogTokens(t *testing.T) {
	rs := safeRedis(t)
	env := []string{"FLOE_ADMIN_TOKEN=" + adminToken}
	a := startFloedEnv(t, env, "--redis", rs.Addr, "--cluster", "tokens", "--owner", "a")
	b := startFloedEnv(t, env, "--redis", rs.Addr, "--cluster", "tokens", "--owner", "b", "--token", "orders=node-b-secret")
	sum := sha256.Sum256([]byte("orders-secret"))
	body := fmt.Sprintf(`{"name":"orders","layout":"snowcast-128","token_sha256":[%q]}`, hex.EncodeToString(sum[:]))
	if code, resp := a.admin(http.MethodPost, "/v1/admin/sequences", body); code != http.StatusCreated {
		t.Fatalf("create on a: %d %s", code, resp)
	}
	if code, resp := b.admin(http.MethodPost, "/v1/admin/sequences/orders/attach", ""); code != http.StatusAccepted {
		t.Fatalf("attach on b: %d %s", code, resp)
	}
	deadline := time.Now().Add(startDeadline)
	for {
		_, list := b.admin(http.MethodGet, "/v1/admin/sequences", "")
		var resp struct {
			Sequences []struct {
				Name   string
				Ready  bool
				Tokens int
			}
		}
		json.Unmarshal([]byte(list), &resp)
		ready := false
		for _, s := range resp.Sequences {
			ready = ready || s.Name == "orders" && s.Ready && s.Tokens == 1
		}
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("orders not ready on b with its token: %s", list)
		}
		time.Sleep(pollEvery)
	}
	for _, tt := range []struct {
		token string
		ok    bool
	}{{"orders-secret", true}, {"node-b-secret", true}, {"wrong", false}} {
		c, err := dialNoeq(b.Bin, tt.token)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		ids, err := fetch(c, 5)
		c.Close()
		if tt.ok && (err != nil || len(ids) != 5) {
			t.Errorf("token %q: %v %v, want 5 IDs of orders", tt.token, ids, err)
		}
		if !tt.ok && err == nil {
			t.Errorf("token %q: IDs %v, want the connection closed", tt.token, ids)
		}
	}
	m := b.metrics()
	if got := m[`floe_ids_generated_total{format="id64",seq="orders"}`]; got != 10 {
		t.Errorf("orders issued %v IDs on b, want the 10 of the two tokens", got)
	}
	if strings.Contains(b.stderr.String(), "orders-secret") || strings.Contains(b.stderr.String(), "node-b-secret") {
		t.Errorf("b's log shows a token:\n%s", b.stderr.String())
	}
}
