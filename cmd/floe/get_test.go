package main

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	tests := []struct {
		name       string
		token      string // the server's
		env        map[string]string
		args       []string // after "get"; "ADDR" is the server's address, "DEAD" a refused one
		want       string
		code       int
		wantStderr string
	}{
		{"one", "", nil, []string{"-addr", "ADDR"}, "1\n", 0, ""},
		{"text", "", nil, []string{"-n", "3", "-addr", "ADDR"}, "1\n2\n3\n", 0, ""},
		{"json", "", nil, []string{"-n", "2", "-o", "json", "-addr", "ADDR"}, `["1","2"]` + "\n", 0, ""},
		{"json none", "", nil, []string{"-n", "0", "-o", "json", "-addr", "ADDR"}, "[]\n", 0, ""},
		{"text none", "", nil, []string{"-n", "0", "-addr", "ADDR"}, "", 0, ""},
		{"many", "", nil, []string{"-n", "600", "-addr", "ADDR"}, seqLines(600), 0, ""},
		{"token flag", "s3cret", nil, []string{"-token", "s3cret", "-addr", "ADDR"}, "1\n", 0, ""},
		{"FLOE_TOKEN", "s3cret", map[string]string{"FLOE_TOKEN": "s3cret"}, []string{"-addr", "ADDR"}, "1\n", 0, ""},
		{"NOEQ_TOKEN", "s3cret", map[string]string{"NOEQ_TOKEN": "s3cret"}, []string{"-addr", "ADDR"}, "1\n", 0, ""},
		{"FLOE_TOKEN first", "s3cret", map[string]string{"FLOE_TOKEN": "s3cret", "NOEQ_TOKEN": "old"}, []string{"-addr", "ADDR"}, "1\n", 0, ""},
		{"flag over env", "s3cret", map[string]string{"FLOE_TOKEN": "wrong"}, []string{"-token", "s3cret", "-addr", "ADDR"}, "1\n", 0, ""},
		{"failover", "", nil, []string{"-n", "2", "-addr", "DEAD, ADDR"}, "1\n2\n", 0, ""},
		{"wrong token", "s3cret", nil, []string{"-token", "guess", "-addr", "ADDR"}, "", 1, "wrong or missing token"},
		{"all down", "", nil, []string{"-addr", "DEAD", "-timeout", "1m"}, "", 1, "attempts failed"},
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
			dead := fakeNoeqRefused(t)
			args := []string{"get"}
			for _, a := range tc.args {
				a = strings.ReplaceAll(a, "ADDR", s.addr)
				args = append(args, strings.ReplaceAll(a, "DEAD", dead))
			}
			var out, errOut bytes.Buffer
			code := run(args, &out, &errOut)
			if code != tc.code || out.String() != tc.want || !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, out.String(), errOut.String(), tc.code, tc.want, tc.wantStderr)
			}
		})
	}
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

// seqLines is "1\n2\n...n\n".
func seqLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}
