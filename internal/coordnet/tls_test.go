package coordnet

import (
	"errors"
	"strings"
	"testing"

	"github.com/floeid/floe/internal/tlstest"
)

func TestLoadTLS(t *testing.T) {
	ca := tlstest.NewCA(t, "ca")
	pair := ca.Issue(t, "client")
	notPEM, missing := tlstest.BadFiles(t)

	tests := []struct {
		name                  string
		ca, cert, key, server string
		wantRoots, wantCert   bool
		wantField             string   // "": no error
		wantErr               []string // each is in the error
	}{
		{name: "system roots"},
		{name: "ca", ca: ca.CertFile, wantRoots: true},
		{name: "ca and client certificate", ca: ca.CertFile, cert: pair.CertFile, key: pair.KeyFile, server: "etcd-0", wantRoots: true, wantCert: true},
		{name: "unreadable ca", ca: missing, wantField: "CA", wantErr: []string{missing, "no such file"}},
		{name: "ca without pem", ca: notPEM, wantField: "CA", wantErr: []string{notPEM, "no PEM certificate"}},
		{name: "cert without key", cert: pair.CertFile, wantField: "Key", wantErr: []string{"with a Cert"}},
		{name: "key without cert", key: pair.KeyFile, wantField: "Cert", wantErr: []string{"with a Key"}},
		{name: "unreadable cert", cert: missing, key: pair.KeyFile, wantField: "Cert", wantErr: []string{missing}},
		{name: "unreadable key", cert: pair.CertFile, key: missing, wantField: "Key", wantErr: []string{missing}},
		{name: "a key that is not the cert's", cert: pair.CertFile, key: ca.Issue(t, "other").KeyFile, wantField: "Cert and Key", wantErr: []string{pair.CertFile, "does not match"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadTLS(tt.ca, tt.cert, tt.key, tt.server)
			if tt.wantField != "" {
				fe, ok := errors.AsType[*FileError](err)
				if !ok || fe.Field != tt.wantField {
					t.Fatalf("LoadTLS = %v, want a *FileError of %s", err, tt.wantField)
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("LoadTLS = %v, want an error with %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("LoadTLS: %v", err)
			}
			if got := cfg.RootCAs != nil; got != tt.wantRoots {
				t.Errorf("RootCAs set: %v, want %v", got, tt.wantRoots)
			}
			if got := len(cfg.Certificates) == 1; got != tt.wantCert {
				t.Errorf("a client certificate: %v, want %v", got, tt.wantCert)
			}
			if cfg.ServerName != tt.server || cfg.MinVersion < 0x0303 {
				t.Errorf("ServerName %q, MinVersion %#x; want %q, TLS 1.2 at least", cfg.ServerName, cfg.MinVersion, tt.server)
			}
		})
	}
}
