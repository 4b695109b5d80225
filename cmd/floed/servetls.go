package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/floeid/floe/tlsfile"
)

// TLS on floed's listeners: --tls-cert and --tls-key turn it on for every
// listener at once, with no opt-out per listener, so that no port of a
// node serves in clear beside its TLS ones. The one exception is HTTP's
// probes under --tls-client-ca (see tlsConfigs).

// defaultTLSReload is how often the certificate files are checked for a
// change: a renewed certificate is served within seconds, for three stat
// calls each time.
const defaultTLSReload = tlsfile.DefaultPoll

// tlsFlags defines the TLS flags on fs.
func (c *Config) tlsFlags(fs *flag.FlagSet) {
	file := func(p *string, name, usage string) { fs.Var(textFlag{p, "a file name", nil}, name, usage) }
	file(&c.TLSCert, "tls-cert", "serve TLS on every listener (binary, HTTP, gRPC) with this certificate chain, a PEM `file` (with --tls-key); reloaded when it changes and on SIGHUP")
	file(&c.TLSKey, "tls-key", "the key of --tls-cert, a PEM `file`")
	file(&c.TLSClientCA, "tls-client-ca", "require client certificates signed by the CAs in this PEM `file` (mutual TLS); HTTP's /healthz and /readyz answer without one")
	c.TLSReload = defaultTLSReload
	fs.Var(durationFlag{&c.TLSReload, positive}, "tls-reload-interval", "how often the TLS files are checked for a change (size or modification time), a `duration`")
}

// checkTLS checks the TLS flags and reads their files once: a file that
// cannot be used stops the start, naming its flag.
func (c *Config) checkTLS() error {
	switch {
	case c.TLSCert == "" && c.TLSKey == "" && c.TLSClientCA == "":
		return nil
	case c.TLSCert == "":
		if c.TLSKey != "" {
			return errors.New("--tls-key without --tls-cert")
		}
		return errors.New("--tls-client-ca without --tls-cert and --tls-key: client certificates need TLS")
	case c.TLSKey == "":
		return errors.New("--tls-cert without --tls-key")
	}
	_, err := tlsfile.New(c.tlsFiles(), nil)
	return tlsFlagError(c, err)
}

func (c *Config) tlsFiles() tlsfile.Files {
	return tlsfile.Files{Cert: c.TLSCert, Key: c.TLSKey, ClientCA: c.TLSClientCA}
}

// tlsFlagError names the flag of the file a *tlsfile.FileError names.
func tlsFlagError(c *Config, err error) error {
	fe, ok := errors.AsType[*tlsfile.FileError](err)
	if !ok {
		return err
	}
	for _, f := range []struct{ flag, file string }{{"--tls-cert", c.TLSCert}, {"--tls-key", c.TLSKey}, {"--tls-client-ca", c.TLSClientCA}} {
		if fe.Path == f.file {
			return fmt.Errorf("%s %s: %w", f.flag, f.file, fe.Err)
		}
	}
	return err
}

// listenerTLS is the TLS of floed's listeners: nil configurations in
// plain text.
type listenerTLS struct {
	watcher *tlsfile.Watcher
	bin     *tls.Config // the binary protocol's and gRPC's
	web     *tls.Config // HTTP's
}

// tlsConfigs reads the TLS files and returns the listeners'
// configurations, or none without --tls-cert. Under --tls-client-ca the
// binary protocol and gRPC refuse a handshake without a client
// certificate. HTTP verifies one if given, and the server refuses the
// requests without one but for /healthz and /readyz: a kubelet's HTTPS
// probes present none.
func (c *Config) tlsConfigs(log *slog.Logger) (*listenerTLS, error) {
	if c.TLSCert == "" {
		return &listenerTLS{}, nil
	}
	w, err := tlsfile.New(c.tlsFiles(), log)
	if err != nil {
		return nil, tlsFlagError(c, err)
	}
	web := &tls.Config{NextProtos: []string{"h2", "http/1.1"}}
	if c.TLSClientCA != "" {
		web.ClientAuth = tls.VerifyClientCertIfGiven
	}
	return &listenerTLS{watcher: w, bin: w.ServerConfig(nil), web: w.ServerConfig(web)}, nil
}

// run polls the files until ctx ends, and registers the certificate's
// metrics on reg.
func (lt *listenerTLS) run(ctx context.Context, every time.Duration, reg *prometheus.Registry) {
	if lt.watcher == nil {
		return
	}
	w := lt.watcher
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "floe_tls_certificate_expiry_timestamp_seconds",
			Help: "When the certificate served (--tls-cert) expires, in Unix seconds.",
		}, func() float64 { return float64(w.NotAfter().Unix()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "floe_tls_reloads_total", Help: "Reloads of the TLS files that succeeded.", ConstLabels: prometheus.Labels{"result": "ok"},
		}, func() float64 { ok, _ := w.Reloads(); return float64(ok) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "floe_tls_reloads_total", Help: "Reloads of the TLS files that succeeded.", ConstLabels: prometheus.Labels{"result": "error"},
		}, func() float64 { _, failed := w.Reloads(); return float64(failed) }),
	)
	go w.Run(ctx, every)
}

// reload reads the TLS files again, on SIGHUP; a failure is logged by
// the watcher, and the previous certificate kept.
func (lt *listenerTLS) reload() {
	if lt != nil && lt.watcher != nil {
		lt.watcher.Reload()
	}
}
