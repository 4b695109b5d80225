package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe/workerid/workeridtest"
)

// walkMethods are the methods every path is tried with.
var walkMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE"}

// walkWant is how a route answers a method it takes.
type walkWant struct {
	body   string // of the request
	status int
	ctype  string // the Content-Type, or its media type when it has parameters
}

// walkRoute is a route as the walk calls it.
type walkRoute struct {
	pattern string              // the path as docs/http.md and the router write it
	path    string              // what the walk requests
	methods map[string]walkWant // the methods it takes; HEAD answers as GET
}

var walkRoutes = []walkRoute{
	{"/v1/ids", "/v1/ids?n=2", map[string]walkWant{"GET": {"", 200, "application/json"}}},
	{"/v1/inspect/{id}", "/v1/inspect/2124472963691585536", map[string]walkWant{"GET": {"", 200, "application/json"}}},
	{"/v1/range", "/v1/range?time=2026-11-22T12:00:00Z", map[string]walkWant{"GET": {"", 200, "application/json"}}},
	{"/v1/sequences", "/v1/sequences", map[string]walkWant{"GET": {"", 200, "application/json"}}},
	{"/healthz", "/healthz", map[string]walkWant{"GET": {"", 200, "text/plain; charset=utf-8"}}},
	{"/readyz", "/readyz", map[string]walkWant{"GET": {"", 200, "text/plain; charset=utf-8"}}},
	{"/metrics", "/metrics", map[string]walkWant{"GET": {"", 200, "text/plain"}}},
	{"/v1/admin/sequences", "/v1/admin/sequences", map[string]walkWant{
		"GET":  {"", 200, "application/json"},
		"POST": {`{"name":"walk","format":"id80"}`, 201, "application/json"},
	}},
	{"/v1/admin/sequences/{name}", "/v1/admin/sequences/gone", map[string]walkWant{"DELETE": {"", 204, ""}}},
	{"/v1/admin/sequences/{name}/attach", "/v1/admin/sequences/tenant/attach", map[string]walkWant{"POST": {"", 202, "application/json"}}},
	{"/v1/admin/sequences/{name}/detach", "/v1/admin/sequences/default/detach", map[string]walkWant{"POST": {"", 200, "application/json"}}},
}

// httpDoc is what docs/http.md says of the routes and errors.
type httpDoc struct {
	routes []string        // "METHOD /path", sorted
	errors map[string]bool // "status code", from the Errors table
}

var (
	docRoute = regexp.MustCompile("^\\| `([A-Z]+) (/[^`?\\s]*)")
	docError = regexp.MustCompile("^\\| ([0-9]{3}) \\| `([a-z_]+)` \\|")
)

// readHTTPDoc reads docs/http.md: every "METHOD /path" that starts a table
// row, and the rows of the Errors table.
func readHTTPDoc(t *testing.T) httpDoc {
	t.Helper()
	b, err := os.ReadFile("../../docs/http.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := httpDoc{errors: make(map[string]bool)}
	section := ""
	for line := range strings.Lines(string(b)) {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.TrimSpace(h)
		}
		if m := docRoute.FindStringSubmatch(line); m != nil && !slices.Contains(doc.routes, m[1]+" "+m[2]) {
			doc.routes = append(doc.routes, m[1]+" "+m[2])
		}
		if m := docError.FindStringSubmatch(line); m != nil && section == "Errors" {
			doc.errors[m[1]+" "+m[2]] = true
		}
	}
	slices.Sort(doc.routes)
	if len(doc.routes) == 0 || len(doc.errors) == 0 {
		t.Fatalf("docs/http.md: found routes %q and errors %v", doc.routes, doc.errors)
	}
	return doc
}

// walkServer is a cluster node over a MemCatalog with metrics, whose
// catalog also defines the sequences "gone" and "tenant", which it does not
// serve.
func walkServer(t *testing.T) (*httptest.Server, *router) {
	t.Helper()
	cat := workeridtest.NewMemCatalog(4)
	_, h := adminServerWith(t, cat, Config{Registry: prometheus.NewRegistry(), AdminLoopback: true})
	for _, name := range []string{"gone", "tenant"} {
		spec, err := Spec(SequenceConfig{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cat.Create(context.Background(), name, spec); err != nil {
			t.Fatal(err)
		}
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs, h.(*router)
}

// walkReply is a reply as the walk checks it.
type walkReply struct {
	status int
	header http.Header
	body   string
}

func walkDo(t *testing.T, hs *httptest.Server, method, target, body string) walkReply {
	t.Helper()
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return walkReply{resp.StatusCode, resp.Header, string(b)}
}

// checkContentType reports a Content-Type other than want, or than want
// with parameters.
func checkContentType(t *testing.T, got, want string) {
	t.Helper()
	if got != want && !(want != "" && strings.HasPrefix(got, want+";")) {
		t.Errorf("Content-Type %q, want %q", got, want)
	}
}

// checkError checks an error reply: JSON whose status and code the docs
// list, and code wantCode when that is not empty. A reply to HEAD has no
// body to check.
func checkError(t *testing.T, doc httpDoc, method string, got walkReply, wantCode string) {
	t.Helper()
	checkContentType(t, got.header.Get("Content-Type"), "application/json")
	if method == http.MethodHead {
		if got.body != "" {
			t.Errorf("a reply to HEAD has the body %q", got.body)
		}
		return
	}
	var e httpError
	if err := json.Unmarshal([]byte(got.body), &e); err != nil || e.Error == "" || e.Code == "" {
		t.Fatalf("body %q: want JSON with an error and a code", got.body)
	}
	if wantCode != "" && e.Code != wantCode {
		t.Errorf("code %q (%s), want %q", e.Code, e.Error, wantCode)
	}
	if !doc.errors[strconv.Itoa(got.status)+" "+e.Code] {
		t.Errorf("status %d with code %q is not in the Errors table of docs/http.md", got.status, e.Code)
	}
}

// TestHandler_Routes walks every route of docs/http.md with every method,
// and checks the status, Content-Type and error code of each reply against
// the docs.
func TestHandler_Routes(t *testing.T) {
	doc := readHTTPDoc(t)
	var want []string
	for _, r := range walkRoutes {
		for m := range r.methods {
			want = append(want, m+" "+r.pattern)
		}
	}
	slices.Sort(want)
	if !slices.Equal(doc.routes, want) {
		t.Fatalf("docs/http.md has the routes\n%q\nthe walk has\n%q", doc.routes, want)
	}
	_, rt := walkServer(t)
	var served []string
	for path, rr := range rt.routes {
		for _, m := range rr.methods {
			served = append(served, m.name+" "+path)
		}
	}
	slices.Sort(served)
	if !slices.Equal(served, want) {
		t.Fatalf("the server has the routes\n%q\nthe docs\n%q", served, want)
	}

	for _, r := range walkRoutes {
		t.Run(strings.ReplaceAll(strings.TrimPrefix(r.pattern, "/"), "/", " "), func(t *testing.T) {
			hs, _ := walkServer(t) // a server of its own, for the methods that change it
			var allow []string
			for _, m := range walkMethods {
				if _, ok := r.methods[m]; ok || m == http.MethodHead && r.methods[http.MethodGet] != (walkWant{}) {
					allow = append(allow, m)
				}
			}
			for _, method := range walkMethods {
				t.Run(strings.ToLower(method), func(t *testing.T) {
					w, ok := r.methods[method]
					if !ok && method == http.MethodHead {
						w, ok = r.methods[http.MethodGet]
					}
					got := walkDo(t, hs, method, hs.URL+r.path, w.body)
					if !ok {
						if got.status != http.StatusMethodNotAllowed {
							t.Fatalf("status %d (%s), want 405", got.status, got.body)
						}
						if a := got.header.Get("Allow"); a != strings.Join(allow, ", ") {
							t.Errorf("Allow %q, want %q", a, strings.Join(allow, ", "))
						}
						checkError(t, doc, method, got, "method_not_allowed")
						return
					}
					if got.status != w.status {
						t.Fatalf("status %d (%s), want %d", got.status, got.body, w.status)
					}
					checkContentType(t, got.header.Get("Content-Type"), w.ctype)
					if method == http.MethodHead && got.body != "" {
						t.Errorf("a reply to HEAD has the body %q", got.body)
					}
					if method != http.MethodHead && w.status != http.StatusNoContent && got.body == "" {
						t.Error("no body")
					}
				})
			}
		})
	}

	t.Run("unknown paths", func(t *testing.T) {
		hs, _ := walkServer(t)
		for _, path := range []string{
			"/", "/nope", "/v1", "/v1/", "/v1/ids/", "/v1/ids/x", "/v1/inspect/", "/v1/inspect/1/parts",
			"/v1/sequences/default", "/healthz/", "/metrics/x", "/v1/admin", "/v1/admin/sequences/",
			"/v1/admin/sequences/x/nope", "/v1/admin/sequences/x/attach/y", "/V1/IDS",
		} {
			for _, method := range walkMethods {
				got := walkDo(t, hs, method, hs.URL+path, "")
				if got.status != http.StatusNotFound {
					t.Errorf("%s %s: status %d (%s), want 404", method, path, got.status, got.body)
					continue
				}
				checkError(t, doc, method, got, "not_found")
			}
		}
	})

	t.Run("unclean paths", func(t *testing.T) {
		hs, _ := walkServer(t)
		c := hs.Client()
		c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		for path, want := range map[string]string{
			"/v1//ids?n=2":                           "/v1/ids?n=2",
			"/v1/./sequences":                        "/v1/sequences",
			"/v1/admin/x/../sequences/tenant/attach": "/v1/admin/sequences/tenant/attach",
		} {
			req, err := http.NewRequest(http.MethodPost, hs.URL+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != want {
				t.Errorf("POST %s: %d to %q, want 307 to %q", path, resp.StatusCode, resp.Header.Get("Location"), want)
			}
		}
	})

	t.Run("connect to a host and port", func(t *testing.T) {
		hs, _ := walkServer(t)
		got := walkDo(t, hs, http.MethodConnect, hs.URL, "") // CONNECT 127.0.0.1:port
		if got.status != http.StatusNotFound {
			t.Fatalf("status %d (%s), want 404", got.status, got.body)
		}
		checkError(t, doc, http.MethodConnect, got, "not_found")
	})
}

// TestHandler_Query checks that queries are read strictly: every pair that
// is malformed, unknown to the route or repeated is refused, naming it,
// never dropped.
func TestHandler_Query(t *testing.T) {
	hs := newHTTPServer(t, nil)
	tests := []struct {
		name     string
		target   string
		status   int
		code     string // of an error
		wantText string // in the body
	}{
		{"no query", "/v1/ids", 200, "", `"ids":["`},
		{"an empty query", "/v1/ids?", 200, "", `"ids":["`},
		{"n percent-encoded", "/v1/ids?%6e=%35", 200, "", `"ids":["`},
		{"n with leading zeros", "/v1/ids?n=007", 200, "", `"ids":["`},
		{"a named sequence percent-encoded", "/v1/ids?seq=%73no&n=2", 200, "", `"seq":"sno"`},
		{"n empty", "/v1/ids?n=", 400, "bad_request", `n must be a count of 1..1000, not \"\"`},
		{"n without a value", "/v1/ids?n", 400, "bad_request", `not \"\"`},
		{"n a bad escape", "/v1/ids?n=%zz", 400, "bad_request", `parameter n in \"n=%zz\": invalid URL escape \"%zz\"`},
		{"a semicolon", "/v1/ids?n=5;n=6", 400, "bad_request", `not \"5;n=6\"`},
		{"n twice", "/v1/ids?n=5&n=6", 400, "bad_request", `parameter n given twice: \"5\" and \"6\"`},
		{"n twice, once encoded", "/v1/ids?n=5&%6E=5", 400, "bad_request", `given twice`},
		{"n with a plus sign", "/v1/ids?n=%2B5", 400, "bad_request", `not \"+5\"`},
		{"n with a space", "/v1/ids?n=+5", 400, "bad_request", `not \" 5\"`},
		{"n negative", "/v1/ids?n=-1", 400, "bad_request", `not \"-1\"`},
		{"n hexadecimal", "/v1/ids?n=0x10", 400, "bad_request", `not \"0x10\"`},
		{"n with an exponent", "/v1/ids?n=1e3", 400, "bad_request", `not \"1e3\"`},
		{"n zero", "/v1/ids?n=0", 400, "bad_request", `not \"0\"`},
		{"n above the maximum", "/v1/ids?n=1001", 400, "bad_request", `not \"1001\"`},
		{"n beyond 64 bits", "/v1/ids?n=99999999999999999999", 400, "bad_request", `not \"99999999999999999999\"`},
		{"an unknown parameter", "/v1/ids?count=3", 400, "bad_request", `/v1/ids takes n, seq: unknown parameter \"count\" in \"count=3\"`},
		{"a parameter in upper case", "/v1/ids?N=3", 400, "bad_request", `unknown parameter \"N\"`},
		{"a trailing ampersand", "/v1/ids?n=3&", 400, "bad_request", `has an empty parameter`},
		{"a leading ampersand", "/v1/ids?&n=3", 400, "bad_request", `has an empty parameter`},
		{"two ampersands", "/v1/ids?n=3&&seq=sno", 400, "bad_request", `has an empty parameter`},
		{"seq empty", "/v1/ids?seq=", 400, "bad_request", `seq is empty`},
		{"seq twice", "/v1/ids?seq=default&seq=sno", 400, "bad_request", `parameter seq given twice`},
		{"seq unknown", "/v1/ids?seq=nope", 404, "unknown_sequence", `\"nope\"`},
		{"seq with an encoded semicolon", "/v1/ids?seq=a%3Bn%3D3", 404, "unknown_sequence", `\"a;n=3\"`},
		{"inspect with n", "/v1/inspect/1?n=3", 400, "bad_request", `/v1/inspect/{id} takes seq, layout: unknown parameter \"n\"`},
		{"inspect with seq empty", "/v1/inspect/1?seq=", 400, "bad_request", `seq is empty`},
		{"inspect with a bad escape", "/v1/inspect/1?seq=%g1", 400, "bad_request", `invalid URL escape`},
		{"sequences with a parameter", "/v1/sequences?seq=default", 400, "bad_request", `/v1/sequences takes no query parameters: unknown parameter \"seq\"`},
		{"healthz with a parameter", "/healthz?x", 400, "bad_request", `/healthz takes no query parameters`},
		{"readyz with a parameter", "/readyz?verbose=1", 400, "bad_request", `/readyz takes no query parameters`},
		{"admin with a parameter", "/v1/admin/sequences?name=x", 400, "bad_request", `/v1/admin/sequences takes no query parameters`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, ctype, body := httpGet(t, hs.URL+tt.target)
			if status != tt.status || !strings.Contains(body, tt.wantText) {
				t.Fatalf("got %d %s, want %d with %s", status, body, tt.status, tt.wantText)
			}
			if tt.code == "" {
				return
			}
			var e httpError
			if err := json.Unmarshal([]byte(body), &e); err != nil || e.Code != tt.code || ctype != "application/json" {
				t.Errorf("got %s %s, want JSON with code %q", ctype, body, tt.code)
			}
		})
	}
}

// TestRouter_OptionsAsterisk checks the reply to "OPTIONS *", which reaches
// the handler when the http.Server's DisableGeneralOptionsHandler is set.
func TestRouter_OptionsAsterisk(t *testing.T) {
	rt := newRouter(func(string, string) {})
	r := httptest.NewRequest(http.MethodOptions, "*", nil)
	r.RequestURI = "*"
	w := httptest.NewRecorder()
	rt.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed || !strings.Contains(w.Body.String(), `"method_not_allowed"`) {
		t.Errorf("OPTIONS *: %d %s, want 405 method_not_allowed", w.Code, w.Body.String())
	}
	if _, ok := w.Header()["Allow"]; !ok {
		t.Error("OPTIONS *: no Allow header")
	}
}
