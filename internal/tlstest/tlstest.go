// Package tlstest makes certificate authorities and certificates for tests
// of TLS on loopback addresses, and writes them as PEM files in the test's
// temporary directory, as servers and daemons read them.
package tlstest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is a certificate authority. It is not safe for concurrent use.
type CA struct {
	Name     string
	CertFile string         // the CA's certificate, PEM
	Pool     *x509.CertPool // holds the CA's certificate only

	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	dir  string
	n    int64 // serial numbers issued
}

// Pair is a certificate signed by a CA and its key.
type Pair struct {
	CertFile string // the certificate, PEM
	KeyFile  string // its private key, PEM
	Cert     tls.Certificate
}

// NewCA returns a new certificate authority named name, valid for a day.
func NewCA(tb testing.TB, name string) *CA {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatalf("tlstest: CA %s: %v", name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatalf("tlstest: CA %s: %v", name, err)
	}
	ca := &CA{Name: name, Pool: x509.NewCertPool(), cert: cert, key: key, dir: tb.TempDir(), n: 1}
	ca.Pool.AddCert(cert)
	ca.CertFile = ca.write(tb, name+"-ca.pem", "CERTIFICATE", der)
	return ca
}

// Issue returns a certificate with common name cn, valid for a day for
// 127.0.0.1, ::1 and localhost, both as a server's and as a client's.
func (ca *CA) Issue(tb testing.TB, cn string) Pair {
	tb.Helper()
	key := newKey(tb)
	ca.n++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.n),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:     []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		tb.Fatalf("tlstest: certificate %s: %v", cn, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		tb.Fatalf("tlstest: key of %s: %v", cn, err)
	}
	base := ca.Name + "-" + cn
	p := Pair{
		CertFile: ca.write(tb, base+".pem", "CERTIFICATE", der),
		KeyFile:  ca.write(tb, base+"-key.pem", "PRIVATE KEY", keyDER),
	}
	if p.Cert, err = tls.LoadX509KeyPair(p.CertFile, p.KeyFile); err != nil {
		tb.Fatalf("tlstest: %v", err)
	}
	return p
}

// ClientConfig returns a TLS configuration that trusts ca and presents
// client, if it has a certificate.
func (ca *CA) ClientConfig(client Pair) *tls.Config {
	cfg := &tls.Config{RootCAs: ca.Pool}
	if client.Cert.Certificate != nil {
		cfg.Certificates = []tls.Certificate{client.Cert}
	}
	return cfg
}

// BadFiles returns two paths in the test's temporary directory that a
// TLS configuration cannot use: notPEM, a file that holds no PEM block,
// and missing, where no file is.
func BadFiles(tb testing.TB) (notPEM, missing string) {
	tb.Helper()
	dir := tb.TempDir()
	notPEM = filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		tb.Fatalf("tlstest: %v", err)
	}
	return notPEM, filepath.Join(dir, "missing")
}

func (ca *CA) write(tb testing.TB, name, kind string, der []byte) string {
	tb.Helper()
	path := filepath.Join(ca.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		tb.Fatalf("tlstest: %v", err)
	}
	return path
}

func newKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatalf("tlstest: %v", err)
	}
	return key
}
