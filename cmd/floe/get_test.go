package main

import (
	"bytes"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/floeid/floe/floetest"
)

func TestGet(t *testing.T) {
	tests := []struct {
		name       string
		token      string // the server's
		env        map[string]string
		args       []string // after "get"; "ADDR" is the server's address, "DEAD" a refused one, "HTTP" an HTTP server's
		want       string   // "{k}" stands for the server's k-th ID
		code       int
		wantStderr string
	}{
		{"one", "", nil, []string{"-addr", "ADDR"}, "{1}\n", 0, ""},
		{"text", "", nil, []string{"-n", "3", "-addr", "ADDR"}, "{1}\n{2}\n{3}\n", 0, ""},
		{"json", "", nil, []string{"-n", "2", "-o", "json", "-addr", "ADDR"}, `["{1}","{2}"]` + "\n", 0, ""},
		{"json none", "", nil, []string{"-n", "0", "-o", "json", "-addr", "ADDR"}, "[]\n", 0, ""},
		{"text none", "", nil, []string{"-n", "0", "-addr", "ADDR"}, "", 0, ""},
		{"many", "", nil, []string{"-n", "600", "-addr", "ADDR"}, seqLines(600), 0, ""},
		{"token flag", "s3cret", nil, []string{"-token", "s3cret", "-addr", "ADDR"}, "{1}\n", 0, ""},
		{"FLOE_TOKEN", "s3cret", map[string]string{"FLOE_TOKEN": "s3cret"}, []string{"-addr", "ADDR"}, "{1}\n", 0, ""},
		{"NOEQ_TOKEN", "s3cret", map[string]string{"NOEQ_TOKEN": "s3cret"}, []string{"-addr", "ADDR"}, "{1}\n", 0, ""},
		{"FLOE_TOKEN first", "s3cret", map[string]string{"FLOE_TOKEN": "s3cret", "NOEQ_TOKEN": "old"}, []string{"-addr", "ADDR"}, "{1}\n", 0, ""},
		{"flag over env", "s3cret", map[string]string{"FLOE_TOKEN": "wrong"}, []string{"-token", "s3cret", "-addr", "ADDR"}, "{1}\n", 0, ""},
		{"failover", "", nil, []string{"-n", "2", "-addr", "DEAD, ADDR"}, "{1}\n{2}\n", 0, ""},
		{"failover from http", "", nil, []string{"-n", "2", "-addr", "HTTP,ADDR"}, "{1}\n{2}\n", 0, ""},
		{"wrong token", "s3cret", nil, []string{"-token", "guess", "-addr", "ADDR"}, "", 1, "wrong or missing token"},
		{"all down", "", nil, []string{"-addr", "DEAD", "-timeout", "1m"}, "", 1, "attempts failed"},
		{"http server", "", nil, []string{"-addr", "HTTP"}, "", 1, "invalid reply: ID 5211883372140375601 reads as 2050-"},
		{"http server hint", "", nil, []string{"-addr", "HTTP"}, "", 1, "-addr must name the binary port"},
		{"http server, json", "", nil, []string{"-o", "json", "-addr", "HTTP"}, "", 1, "more than 10m0s from the local clock"},
		{"another layout", "", nil, []string{"-layout", "snowcast-1024", "-addr", "ADDR"}, "", 1, "more than 10m0s from the local clock"},
		{"bad layout", "", nil, []string{"-layout", "nope", "-addr", "ADDR"}, "", 1, "-layout"},
		{"bad max skew", "", nil, []string{"-max-skew", "0s", "-addr", "ADDR"}, "", 1, "-max-skew 0s"},
		{"negative count", "", nil, []string{"-n", "-1", "-addr", "ADDR"}, "", 1, "-n -1"},
		{"bad output", "", nil, []string{"-o", "xml", "-addr", "ADDR"}, "", 1, "-o"},
		{"bad address", "", nil, []string{"-addr", "nowhere"}, "", 1, "invalid server address"},
		{"no address", "", nil, []string{"-addr", " , "}, "", 1, "no server addresses"},
		{"unknown flag", "", nil, []string{"-bogus"}, "", 2, "-bogus"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FLOE_TOKEN", "")
			t.Setenv("NOEQ_TOKEN", "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			s := startFakeNoeq(t, tc.token)
			dead := floetest.FreeAddrs(t, 1)[0]
			http := startHTTP400(t)
			args := []string{"get"}
			for _, a := range tc.args {
				a = strings.ReplaceAll(a, "ADDR", s.addr)
				a = strings.ReplaceAll(a, "HTTP", http)
				args = append(args, strings.ReplaceAll(a, "DEAD", dead))
			}
			want := tc.want
			for k := 600; k >= 1; k-- {
				want = strings.ReplaceAll(want, "{"+strconv.Itoa(k)+"}", strconv.FormatUint(s.base+uint64(k), 10))
			}
			var out, errOut bytes.Buffer
			code := run(args, &out, &errOut)
			if code != tc.code || out.String() != want || !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out.String(), errOut.String(), tc.code, want, tc.wantStderr)
			}
		})
	}
}

// startHTTP400 starts a server on 127.0.0.1 that answers what it reads
// with an HTTP error, as floed's HTTP port or any web server does, and
// returns its address. It stops with the test.
func startHTTP400(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() {
		l.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			var b [1]byte
			if _, err := c.Read(b[:]); err == nil {
				c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request"))
			}
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestGet_Help: -h lists the flags and does not show the token.
func TestGet_Help(t *testing.T) {
	t.Setenv("FLOE_TOKEN", "do-not-print")
	var out, errOut bytes.Buffer
	if code := run([]string{"get", "-h"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d", code)
	}
	help := errOut.String()
	if !strings.Contains(help, "-addr") || strings.Contains(help, "do-not-print") {
		t.Errorf("help %q: want the flags, without the token", help)
	}
}

// seqLines is "{1}\n{2}\n...{n}\n".
func seqLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("{" + strconv.Itoa(i) + "}\n")
	}
	return b.String()
}
