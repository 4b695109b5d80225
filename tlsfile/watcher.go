package tlsfile

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Files name the PEM files a server's TLS is read from.
type Files struct {
	Cert string // the certificate chain, the server's certificate first
	Key  string // its private key
	// ClientCA, when set, holds the CAs whose client certificates are
	// accepted: ServerConfig then requires one (mutual TLS).
	ClientCA string
}

// DefaultPoll is how often Run checks the files when given no interval: a
// renewed certificate is served within seconds, at the cost of three stat
// calls each time.
const DefaultPoll = 5 * time.Second

// Watcher serves the certificate and client CAs of its Files and reloads
// them when they change. It is safe for concurrent use.
type Watcher struct {
	files Files        // immutable
	log   *slog.Logger // immutable; nil: no logs

	cur            atomic.Pointer[loaded]
	reloads, fails atomic.Uint64

	mu   sync.Mutex // held by a reload
	seen [3]stamp   // guarded by mu: the files as the last reload found them
}

// loaded is what one successful read of the files gave.
type loaded struct {
	cert *tls.Certificate
	pool *x509.CertPool // nil without Files.ClientCA
}

// stamp is what Run compares to tell that a file changed.
type stamp struct {
	size    int64
	modTime time.Time
	missing bool
}

// New reads files and returns a Watcher serving them. log, when not nil,
// gets a line for each reload (Info) and each failed one (Error). The
// error of a file that cannot be used is a *FileError naming it.
func New(files Files, log *slog.Logger) (*Watcher, error) {
	if files.Cert == "" || files.Key == "" {
		return nil, errors.New("tlsfile: a certificate and a key are both required")
	}
	w := &Watcher{files: files, log: log}
	w.seen = w.stamps()
	l, err := w.load()
	if err != nil {
		return nil, err
	}
	w.cur.Store(l)
	return w, nil
}

func (w *Watcher) load() (*loaded, error) {
	pair, err := loadPair(w.files.Cert, w.files.Key)
	if err != nil {
		return nil, err
	}
	l := &loaded{cert: &pair}
	if w.files.ClientCA != "" {
		if l.pool, err = loadPool(w.files.ClientCA); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// Reload reads the files again and serves them to the handshakes that
// follow. When a file cannot be used it keeps serving the previous ones
// and returns a *FileError naming the file.
func (w *Watcher) Reload() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = w.stamps()
	return w.reload()
}

// reload reads the files; w.mu is held.
func (w *Watcher) reload() error {
	l, err := w.load()
	if err != nil {
		w.fails.Add(1)
		if w.log != nil {
			w.log.Error("TLS reload failed; serving the previous certificate", "err", err, "not_after", w.NotAfter())
		}
		return err
	}
	w.cur.Store(l)
	w.reloads.Add(1)
	if w.log != nil {
		w.log.Info("TLS certificate reloaded", "cert", w.files.Cert, "subject", l.cert.Leaf.Subject.String(), "not_after", l.cert.Leaf.NotAfter)
	}
	return nil
}

// Run checks the files' size and modification time every interval
// (DefaultPoll when 0) until ctx ends, and reloads them when either
// changed. A failed reload is tried again at the files' next change.
func (w *Watcher) Run(ctx context.Context, interval time.Duration) {
	if interval <= 0 {
		interval = DefaultPoll
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		w.mu.Lock()
		if now := w.stamps(); now != w.seen {
			w.seen = now
			w.reload()
		}
		w.mu.Unlock()
	}
}

// stamps returns the files' stamps, following symbolic links (a
// Kubernetes Secret's files are links that an update swaps).
func (w *Watcher) stamps() [3]stamp {
	var s [3]stamp
	for i, name := range []string{w.files.Cert, w.files.Key, w.files.ClientCA} {
		if name == "" {
			continue
		}
		fi, err := os.Stat(name)
		if err != nil {
			s[i].missing = true
			continue
		}
		s[i] = stamp{size: fi.Size(), modTime: fi.ModTime()}
	}
	return s
}

// NotAfter returns the end of the validity of the certificate served.
func (w *Watcher) NotAfter() time.Time { return w.cur.Load().cert.Leaf.NotAfter }

// Certificate returns the certificate served now.
func (w *Watcher) Certificate() *tls.Certificate { return w.cur.Load().cert }

// Reloads returns how many reloads succeeded and failed since New.
func (w *Watcher) Reloads() (ok, failed uint64) { return w.reloads.Load(), w.fails.Load() }

// ServerConfig returns a server's TLS configuration that serves the
// watched files: a copy of base (nil: the zero Config) with TLS 1.2 at
// least, and, with Files.ClientCA, tls.RequireAndVerifyClientCert unless
// base sets another ClientAuth (tls.VerifyClientCertIfGiven, say).
//
// Each handshake uses the configuration GetConfigForClient returns, built
// from base: what a caller adds to the returned configuration afterwards
// does not reach it. Set base.NextProtos to the protocols served ("h2"
// and "http/1.1" for HTTP, "h2" for gRPC), since net/http's additions
// are lost.
func (w *Watcher) ServerConfig(base *tls.Config) *tls.Config {
	tmpl := &tls.Config{}
	if base != nil {
		tmpl = base.Clone()
	}
	tmpl.GetCertificate, tmpl.GetConfigForClient = nil, nil
	if tmpl.MinVersion < tls.VersionTLS12 {
		tmpl.MinVersion = tls.VersionTLS12
	}
	if w.files.ClientCA != "" && tmpl.ClientAuth == tls.NoClientCert {
		tmpl.ClientAuth = tls.RequireAndVerifyClientCert
	}
	type built struct {
		from *loaded
		cfg  *tls.Config
	}
	var last atomic.Pointer[built] // one configuration per reload, shared by the handshakes
	out := tmpl.Clone()
	out.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return w.Certificate(), nil }
	out.GetConfigForClient = func(*tls.ClientHelloInfo) (*tls.Config, error) {
		l := w.cur.Load()
		if b := last.Load(); b != nil && b.from == l {
			return b.cfg, nil
		}
		cfg := tmpl.Clone()
		cfg.Certificates = []tls.Certificate{*l.cert}
		cfg.ClientCAs = l.pool
		last.Store(&built{l, cfg})
		return cfg, nil
	}
	return out
}
