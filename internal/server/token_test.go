package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floeid/floe/id64"
	"github.com/floeid/floe/sequencer"
	"github.com/floeid/floe/workerid"
	"github.com/floeid/floe/workerid/workeridtest"
)

// TestServer_CatalogTokens checks that a sequence created at runtime with
// tokens (their hashes in the catalog) serves binary clients that send
// one, on a node that attaches it from the catalog, next to the tokens a
// node's configuration gives the name (floed --token for a sequence that is
// not in its --seq).
func TestServer_CatalogTokens(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	_, ha, _ := adminNode(t, cat, Config{AdminLoopback: true})
	b, hb, addrB := adminNode(t, cat, Config{AdminLoopback: true, Tokens: map[string][]string{"orders": {"node-b-secret"}}})
	hash := workerid.HashToken([]byte("orders-secret")).String()
	body := fmt.Sprintf(`{"name":"orders","layout":"snowcast-128","token_sha256":[%q]}`, hash)
	if code, resp := call(ha, http.MethodPost, "/v1/admin/sequences", body, loopback, ""); code != http.StatusCreated || !strings.Contains(resp, `"tokens":1`) {
		t.Fatalf("create on a: %d %s", code, resp)
	}
	if code, resp := call(hb, http.MethodPost, "/v1/admin/sequences/orders/attach", "", loopback, ""); code != http.StatusAccepted {
		t.Fatalf("attach on b: %d %s", code, resp)
	}
	waitSeqState(t, b, "orders", sequencer.Serving)
	orders, err := b.sequence("orders")
	if err != nil {
		t.Fatal(err)
	}
	wid, _, _ := orders.info()
	snowcast, err := id64.ParseLayout("snowcast-128")
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name      string
		token     string
		wantOrder bool // IDs of orders (else of default)
		wantErr   bool
	}{
		{name: "the catalog's token", token: "orders-secret", wantOrder: true},
		{name: "the node's token for the name", token: "node-b-secret", wantOrder: true},
		{name: "no token: the default sequence", token: "", wantOrder: false},
		{name: "a wrong token", token: "orders-secre", wantErr: true},
		{name: "the hash for the token", token: hash[:64], wantErr: true},
	}
	def := b.set.Load().list[0]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := [2]uint64{orders.stats().Issued, def.stats().Issued}
			c := dialNoeq(t, addrB, tt.token)
			ids, err := c.get(10)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("got IDs %v, want the connection closed", ids)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [2]uint64{orders.stats().Issued - before[0], def.stats().Issued - before[1]}
			want := [2]uint64{0, 10}
			if tt.wantOrder {
				want = [2]uint64{10, 0}
				for _, id := range ids {
					if node := snowcast.Parts(id64.ID(id)).Node; int(node) != wid {
						t.Fatalf("ID %d: node %d, want orders' worker ID %d on b", id, node, wid)
					}
				}
			}
			if got != want {
				t.Fatalf("IDs issued by orders and default: %v, want %v", got, want)
			}
		})
	}

	// HTTP requests for it need one of its tokens too.
	for _, tt := range []struct {
		token string
		want  int
	}{{"", http.StatusUnauthorized}, {"orders-secret", http.StatusOK}, {"node-b-secret", http.StatusOK}, {"nope", http.StatusUnauthorized}} {
		r := httptest.NewRequest(http.MethodGet, "/v1/ids?seq=orders&n=2", nil)
		if tt.token != "" {
			r.Header.Set("Authorization", "Bearer "+tt.token)
		}
		w := httptest.NewRecorder()
		hb.ServeHTTP(w, r)
		if w.Code != tt.want {
			t.Errorf("GET /v1/ids?seq=orders with token %q: %d %s, want %d", tt.token, w.Code, w.Body, tt.want)
		}
	}

	// The admin list counts the catalog's tokens, and never shows them.
	code, list := call(hb, http.MethodGet, "/v1/admin/sequences", "", loopback, "")
	var resp struct{ Sequences []adminSequence }
	if err := json.Unmarshal([]byte(list), &resp); code != http.StatusOK || err != nil {
		t.Fatalf("list: %d %s %v", code, list, err)
	}
	for _, a := range resp.Sequences {
		if want := map[string]int{"orders": 1}[a.Name]; a.Tokens != want {
			t.Errorf("list: %s has %d tokens, want %d", a.Name, a.Tokens, want)
		}
	}
	if strings.Contains(list, "orders-secret") || strings.Contains(list, hash) {
		t.Errorf("list shows a token or its hash: %s", list)
	}
}

func TestServer_AdminCreateTokens(t *testing.T) {
	_, h := adminServer(t, workeridtest.NewMemCatalog(4), "")
	secret, other := workerid.HashToken([]byte("secret")).String(), workerid.HashToken([]byte("other")).String()
	tests := []struct {
		name     string
		body     string
		want     int
		wantText string
	}{
		{name: "with a token", body: `{"name":"t","token_sha256":["` + secret + `"]}`, want: http.StatusCreated, wantText: `"tokens":1`},
		{name: "again, the same token", body: `{"name":"t","token_sha256":["` + strings.ToUpper(secret) + `"]}`, want: http.StatusOK, wantText: `"tokens":1`},
		{name: "again, without tokens", body: `{"name":"t"}`, want: http.StatusOK, wantText: `"tokens":1`},
		{name: "again, another token", body: `{"name":"t","token_sha256":["` + other + `"]}`, want: http.StatusConflict, wantText: "other tokens"},
		{name: "a token in clear", body: `{"name":"u","token_sha256":["secret"]}`, want: http.StatusBadRequest, wantText: "never the token itself"},
		{name: "tokens not a list", body: `{"name":"u","token_sha256":"` + secret + `"}`, want: http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, body := call(h, http.MethodPost, "/v1/admin/sequences", tt.body, loopback, "")
			if got != tt.want || !strings.Contains(body, tt.wantText) {
				t.Fatalf("got %d %s, want %d with %q", got, body, tt.want, tt.wantText)
			}
		})
	}
}

// TestServer_CatalogTokenConflict: a sequence whose catalog token selects
// another sequence of the node is not attached.
func TestServer_CatalogTokenConflict(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	_, h := adminServerWith(t, cat, Config{AdminLoopback: true, Tokens: map[string][]string{"a": {"shared"}}})
	hash := workerid.HashToken([]byte("shared")).String()
	for _, name := range []string{"a", "b"} {
		body := fmt.Sprintf(`{"name":%q,"token_sha256":[%q]}`, name, hash)
		if code, resp := call(h, http.MethodPost, "/v1/admin/sequences", body, loopback, ""); code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", name, code, resp)
		}
	}
	if code, resp := call(h, http.MethodPost, "/v1/admin/sequences/a/attach", "", loopback, ""); code != http.StatusAccepted {
		t.Fatalf("attach a: %d %s", code, resp)
	}
	code, resp := call(h, http.MethodPost, "/v1/admin/sequences/b/attach", "", loopback, "")
	if code != http.StatusConflict || !strings.Contains(resp, `a token of sequence \"b\" also selects sequence \"a\"`) {
		t.Fatalf("attach b: %d %s, want 409 naming both", code, resp)
	}
}

func TestConfig_Tokens(t *testing.T) {
	cat := workeridtest.NewMemCatalog(4)
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{name: "without a catalog", cfg: Config{Tokens: map[string][]string{"orders": {"x"}}}, wantErr: `tokens for sequence "orders", which is not served, and no catalog`},
		{name: "a served sequence", cfg: Config{Catalog: cat, Sources: cat.Source, Tokens: map[string][]string{"default": {"x"}}}, wantErr: `both in Tokens and in Sequences`},
		{name: "a bad name", cfg: Config{Catalog: cat, Sources: cat.Source, Tokens: map[string][]string{"a/b": {"x"}}}, wantErr: `sequence name "a/b"`},
		{name: "an empty token", cfg: Config{Catalog: cat, Sources: cat.Source, Tokens: map[string][]string{"orders": {""}}}, wantErr: "a token has 1..255 bytes"},
		{name: "a token of another sequence", cfg: Config{Catalog: cat, Sources: cat.Source, Tokens: map[string][]string{"orders": {"x"}},
			Sequences: []SequenceConfig{{Name: "default", Tokens: []string{"x"}}}}, wantErr: `one token selects both "default" and "orders"`},
		{name: "a catalog token of another sequence", cfg: Config{Catalog: cat, Sources: cat.Source, Tokens: map[string][]string{"orders": {"x"}},
			Sequences: []SequenceConfig{{Name: "default", TokenHashes: workerid.NewTokens(workerid.HashToken([]byte("x")))}}}, wantErr: `one token selects both "default" and "orders"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if cfg.Sequences == nil {
				cfg.Sequences = []SequenceConfig{{Name: "default"}}
			}
			cfg.Store = newMemStore()
			_, err := New(cfg)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New: %v, want an error with %q", err, tt.wantErr)
			}
		})
	}
}
