package main

import (
	"io"
	"strings"
	"testing"

	"github.com/floeid/floe/internal/tlstest"
)

// The TLS flags come together, and a file that cannot be used stops the
// start naming its flag and the file.
func TestConfig_TLSFlags(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	pair, other := ca.Issue(t, "floed"), ca.Issue(t, "other")
	notPEM, missing := tlstest.BadFiles(t)
	tests := []struct {
		name    string
		args    []string
		wantErr []string // each in the error; none: no error
	}{
		{"TLS", []string{"--tls-cert", pair.CertFile, "--tls-key", pair.KeyFile}, nil},
		{"mutual TLS", []string{"--tls-cert", pair.CertFile, "--tls-key", pair.KeyFile, "--tls-client-ca", ca.CertFile}, nil},
		{"a certificate without its key", []string{"--tls-cert", pair.CertFile}, []string{"--tls-cert without --tls-key"}},
		{"a key without its certificate", []string{"--tls-key", pair.KeyFile}, []string{"--tls-key without --tls-cert"}},
		{"a client CA without TLS", []string{"--tls-client-ca", ca.CertFile}, []string{"--tls-client-ca without --tls-cert"}},
		{"a missing certificate", []string{"--tls-cert", missing, "--tls-key", pair.KeyFile}, []string{"--tls-cert " + missing, "no such file"}},
		{"a key of another certificate", []string{"--tls-cert", pair.CertFile, "--tls-key", other.KeyFile}, []string{"--tls-key " + other.KeyFile, "does not match"}},
		{"a client CA without PEM", []string{"--tls-cert", pair.CertFile, "--tls-key", pair.KeyFile, "--tls-client-ca", notPEM}, []string{"--tls-client-ca " + notPEM, "no PEM certificate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Config
			err := c.ParseFlags(append(tt.args, "--state", t.TempDir()), envLookup(nil), io.Discard)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one with %q", tt.wantErr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want one with %q", err, want)
				}
			}
		})
	}
}
