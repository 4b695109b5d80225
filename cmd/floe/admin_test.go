package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floeid/floe/floetest"
)

// adminCommands is one command line of each admin subcommand, after
// "-addr ADDR", that succeeds on a startAdminNode with tenant2 defined.
var adminCommands = [][]string{
	{"seq", "list"},
	{"seq", "create", "tenant1"},
	{"seq", "destroy", "-yes", "tenant2"},
	{"node", "attach", "default"},
	{"node", "detach", "default"},
}

// adminArgs returns the command line cmd with flags inserted after its
// subcommand.
func adminArgs(cmd []string, flags ...string) []string {
	args := append([]string{}, cmd[:2]...)
	args = append(args, flags...)
	return append(args, cmd[2:]...)
}

func TestAdmin_Token(t *testing.T) {
	const hint = "(floed requires an admin token: give -token or set $FLOE_ADMIN_TOKEN)"
	tests := []struct {
		name     string
		token    string // the server's
		env      string // $FLOE_ADMIN_TOKEN
		flags    []string
		code     int
		wantAuth string // the Authorization header sent
		wantErr  string // in stderr
		noHint   bool   // stderr has no hint to give a token
		closed   bool   // the server has no token and serves no loopback client without one
	}{
		{name: "token flag", token: "s3cret", flags: []string{"-token", "s3cret"}, wantAuth: "Bearer s3cret"},
		{name: "FLOE_ADMIN_TOKEN", token: "s3cret", env: "s3cret", wantAuth: "Bearer s3cret"},
		{name: "flag over env", token: "s3cret", env: "wrong", flags: []string{"-token=s3cret"}, wantAuth: "Bearer s3cret"},
		{name: "no token set, loopback opted in", wantAuth: ""},
		{
			name: "no token set, loopback not opted in", closed: true, code: 1,
			wantErr: "the admin API is closed: floed has no admin token. Start floed with --admin-token (or $FLOE_ADMIN_TOKEN) and give floe the same token (-token or $FLOE_ADMIN_TOKEN); --admin-loopback serves loopback clients without one (forbidden)\n",
		},
		{name: "a token the server does not need", flags: []string{"-token", "spare"}, wantAuth: "Bearer spare"},
		{
			name: "missing token", token: "s3cret", code: 1,
			wantErr: "the admin API needs the admin token (Authorization: Bearer <token>) (unauthorized)\n" + hint + "\n",
		},
		{
			name: "empty flag over env", token: "s3cret", env: "s3cret", flags: []string{"-token", ""}, code: 1,
			wantErr: "needs the admin token (Authorization: Bearer <token>) (unauthorized)\n" + hint + "\n",
		},
		{
			name: "wrong token", token: "s3cret", flags: []string{"-token", "s3cre"}, code: 1, wantAuth: "Bearer s3cre",
			wantErr: ": the admin API needs the admin token (Authorization: Bearer <token>) (unauthorized)\n", noHint: true,
		},
		{
			name: "wrong token from env", token: "s3cret", env: "S3CRET", code: 1, wantAuth: "Bearer S3CRET",
			wantErr: ": the admin API needs the admin token (Authorization: Bearer <token>) (unauthorized)\n", noHint: true,
		},
	}
	for _, tc := range tests {
		for _, cmd := range adminCommands {
			t.Run(tc.name+"/"+strings.Join(cmd[:2], " "), func(t *testing.T) {
				f := startAdminNodeWith(t, tc.token, tc.token == "" && !tc.closed)
				f.define(t, "tenant2", "id80", "", false)
				args := adminArgs(cmd, append([]string{"-addr", "ADDR"}, tc.flags...)...)
				code, out, errOut := runAdmin(t, f.url, map[string]string{"FLOE_ADMIN_TOKEN": tc.env}, args...)
				if code != tc.code || !strings.Contains(errOut, tc.wantErr) || tc.noHint && strings.Contains(errOut, hint) {
					t.Errorf("exit %d, stderr %q; want %d, stderr with %q", code, errOut, tc.code, tc.wantErr)
				}
				if (code == 0) != (out != "") {
					t.Errorf("exit %d with stdout %q", code, out)
				}
				if given := strings.TrimPrefix(tc.wantAuth, "Bearer "); given != "" && strings.Contains(errOut+out, given) {
					t.Errorf("output %q %q shows the token", out, errOut)
				}
				reqs := f.requests()
				if len(reqs) != 1 || reqs[0].Auth != tc.wantAuth {
					t.Fatalf("requests %+v, want one with Authorization %q", reqs, tc.wantAuth)
				}
			})
		}
	}
}

func TestAdmin_Addr(t *testing.T) {
	f := startAdminNode(t, "")
	hostPort := strings.TrimPrefix(f.url, "http://")
	tests := []struct {
		name    string
		env     string // $FLOE_ADMIN_ADDR
		flags   []string
		code    int
		wantErr string // in stderr
	}{
		{name: "URL", flags: []string{"-addr", f.url}},
		{name: "URL with a slash", flags: []string{"-addr", f.url + "/"}},
		{name: "host:port", flags: []string{"-addr", hostPort}},
		{name: "FLOE_ADMIN_ADDR", env: hostPort},
		{name: "flag over env", env: "http://127.0.0.1:1", flags: []string{"-addr", f.url}},
		{name: "empty flag", env: f.url, flags: []string{"-addr", " "}, code: 1, wantErr: "floe seq: -addr: no address given\n"},
		{name: "scheme", flags: []string{"-addr", "ftp://" + hostPort}, code: 1, wantErr: `scheme "ftp": want http or https`},
		{name: "no host", flags: []string{"-addr", "http:///v1"}, code: 1, wantErr: `-addr "http:///v1": no host`},
		{name: "user", flags: []string{"-addr", "http://admin@" + hostPort}, code: 1, wantErr: "without user, query or fragment"},
		{name: "query", flags: []string{"-addr", f.url + "?x=1"}, code: 1, wantErr: "without user, query or fragment"},
		{name: "not a URL", flags: []string{"-addr", "http://[::1"}, code: 1, wantErr: "want host:port or an http(s) URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runAdmin(t, "", map[string]string{"FLOE_ADMIN_ADDR": tc.env}, adminArgs([]string{"seq", "list"}, tc.flags...)...)
			if code != tc.code || !strings.Contains(errOut, tc.wantErr) || (code == 0) != strings.Contains(out, "\ndefault ") {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, stderr with %q", code, out, errOut, tc.code, tc.wantErr)
			}
		})
	}
}

func TestNewAdminClient(t *testing.T) {
	tests := []struct {
		addr, want string
	}{
		{"127.0.0.1:4445", "http://127.0.0.1:4445"},
		{" localhost:4445 ", "http://localhost:4445"},
		{"https://floed.example", "https://floed.example"},
		{"http://[::1]:4445/", "http://[::1]:4445"},
		{"https://proxy.example/floe/", "https://proxy.example/floe"},
	}
	for _, tc := range tests {
		c, err := newAdminClient(tc.addr, "")
		if err != nil || c.base != tc.want {
			t.Errorf("newAdminClient(%q): base %v, %v; want %q", tc.addr, c, err, tc.want)
			continue
		}
		if path, _ := sequencePath("a-b.c_1", "/attach"); c.base+path != tc.want+"/v1/admin/sequences/a-b.c_1/attach" {
			t.Errorf("newAdminClient(%q): attach URL %q", tc.addr, c.base+path)
		}
		if c.hc.Timeout <= 0 {
			t.Errorf("newAdminClient(%q): no timeout", tc.addr)
		}
	}
}

// TestAdmin_Unreachable: a daemon that is not there is reported at once.
func TestAdmin_Unreachable(t *testing.T) {
	dead := "http://" + floetest.FreeAddrs(t, 1)[0]
	for _, cmd := range adminCommands {
		t.Run(strings.Join(cmd[:2], " "), func(t *testing.T) {
			start := time.Now()
			code, out, errOut := runAdmin(t, dead, nil, adminArgs(cmd, "-addr", "ADDR")...)
			if elapsed := time.Since(start); elapsed >= adminTimeout {
				t.Errorf("took %v", elapsed)
			}
			want := "floe " + cmd[0] + ": cannot reach floed at " + dead + ": "
			if code != 1 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, no stdout, a line starting %q", code, out, errOut, want)
			}
		})
	}
}

// TestAdminClient_Timeout: a daemon that does not answer, or stops in the
// middle of its reply, is given up on after the client's timeout.
func TestAdminClient_Timeout(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, stop <-chan struct{})
		wantErr string
	}{
		{"no reply", func(w http.ResponseWriter, stop <-chan struct{}) { <-stop }, "no reply within 1s"},
		{"a partial reply", func(w http.ResponseWriter, stop <-chan struct{}) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte(`{"sequences":[`))
			w.(http.Flusher).Flush()
			<-stop
		}, "reading the reply"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stop := make(chan struct{})
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.handler(w, stop) }))
			t.Cleanup(s.Close)
			t.Cleanup(func() { close(stop) })
			c, err := newAdminClient(s.URL, "")
			if err != nil {
				t.Fatal(err)
			}
			// 1 s, not the 50 ms it was: the partial reply's headers must
			// come within it, and on a loaded machine they came later; the
			// test checks the giving up and its message, not how soon.
			c.hc.Timeout = time.Second
			start := time.Now()
			var reply struct{ Sequences []seqInfo }
			_, err = c.do(http.MethodGet, "/v1/admin/sequences", nil, &reply)
			if elapsed := time.Since(start); elapsed > 5*time.Second {
				t.Errorf("took %v", elapsed)
			}
			if err == nil || !strings.Contains(err.Error(), "floed at "+s.URL) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("got %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// TestAdmin_BadReply: a reply that is not the admin API's is an error, with
// what floed (or what answered in its place) said.
func TestAdmin_BadReply(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name        string
		cmd         []string
		status      int
		contentType string
		body        string
		wantErr     string // stderr after "floe <command>: "; ADDR is the server's URL
	}{
		{"list: not JSON", []string{"seq", "list"}, 200, "text/html", "<html>hello</html>", "floed at ADDR: GET /v1/admin/sequences: reply is not the admin API's JSON: invalid character '<' looking for beginning of value\n"},
		{"list: empty", []string{"seq", "list"}, 200, "application/json", "", "floed at ADDR: GET /v1/admin/sequences: reply is not the admin API's JSON: unexpected end of JSON input\n"},
		{"list: truncated", []string{"seq", "list"}, 200, "application/json", `{"sequences":[{"name":"default"`, "floed at ADDR: GET /v1/admin/sequences: reply is not the admin API's JSON: unexpected end of JSON input\n"},
		{"list: an array", []string{"seq", "list"}, 200, "application/json", `[{"name":"default"}]`, "floed at ADDR: GET /v1/admin/sequences: reply is not the admin API's JSON: json: cannot unmarshal array into Go value of type"},
		{"list: wrong types", []string{"seq", "list"}, 200, "application/json", `{"sequences":[{"name":"default","gen":"one"}]}`, "floed at ADDR: GET /v1/admin/sequences: reply is not the admin API's JSON: json: cannot unmarshal string into Go struct field"},
		{"list: sequences not a list", []string{"seq", "list"}, 200, "application/json", `{"sequences":{"default":{}}}`, "floed at ADDR: GET /v1/admin/sequences: reply is not the admin API's JSON: json: cannot unmarshal object"},
		{"create: not JSON", []string{"seq", "create", "x"}, 201, "text/plain", "created", "floed at ADDR: POST /v1/admin/sequences: reply is not the admin API's JSON: invalid character 'c'"},
		{"attach: not JSON", []string{"node", "attach", "x"}, 202, "text/plain", "OK", "floed at ADDR: POST /v1/admin/sequences/x/attach: reply is not the admin API's JSON: invalid character 'O'"},
		{"detach: truncated", []string{"node", "detach", "x"}, 200, "application/json", `{"name":"x","attac`, "floed at ADDR: POST /v1/admin/sequences/x/detach: reply is not the admin API's JSON: unexpected end of JSON input\n"},
		{"error page", []string{"seq", "list"}, 502, "text/html", "<html>bad gateway</html>\n", "floed at ADDR: 502 Bad Gateway: <html>bad gateway</html>\n"},
		{"error without a body", []string{"seq", "destroy", "-yes", "x"}, 500, "", "", "floed at ADDR: 500 Internal Server Error\n"},
		{"error JSON of another API", []string{"node", "attach", "x"}, 404, "application/json", `{"message":"not here"}`, `floed at ADDR: 404 Not Found: {"message":"not here"}` + "\n"},
		{"an old floed", []string{"node", "detach", "x"}, 404, "text/plain", "404 page not found\n", "floed at ADDR: 404 Not Found: 404 page not found\n"},
		{"a long error page", []string{"seq", "create", "x"}, 500, "text/plain", long, "floed at ADDR: 500 Internal Server Error: " + long[:200] + "...\n"},
		{"unauthorized without JSON", []string{"seq", "list"}, 401, "text/plain", "go away", "floed at ADDR: 401 Unauthorized: go away\n(floed requires an admin token: give -token or set $FLOE_ADMIN_TOKEN)\n"},
		{"an error code without a message", []string{"seq", "list"}, 503, "application/json", `{"code":"unavailable"}`, `floed at ADDR: 503 Service Unavailable: {"code":"unavailable"}` + "\n"},
		{"an error without a code", []string{"seq", "list"}, 503, "application/json", `{"error":"etcd is down"}`, "etcd is down\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.contentType != "" {
					w.Header().Set("Content-Type", tc.contentType)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			t.Cleanup(s.Close)
			code, out, errOut := runAdmin(t, s.URL, nil, adminArgs(tc.cmd, "-addr", "ADDR")...)
			want := "floe " + tc.cmd[0] + ": " + strings.ReplaceAll(tc.wantErr, "ADDR", s.URL)
			if code != 1 || out != "" || !strings.HasPrefix(errOut, want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1, no stdout, stderr starting %q", code, out, errOut, want)
			}
		})
	}
}

// TestAdmin_NotFloed: an address where something else listens, that is
// not HTTP, is an error.
func TestAdmin_NotFloed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("220 smtp.example ESMTP\r\n"))
			c.Close()
		}
	}()
	code, out, errOut := runAdmin(t, l.Addr().String(), nil, "seq", "list", "-addr", "ADDR")
	want := "floe seq: cannot reach floed at http://" + l.Addr().String() + ": "
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stdout %q, stderr %q; want 1, stderr starting %q", code, out, errOut, want)
	}
}
