package coordnet

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// FileError is a PEM file LoadTLS could not use: Field names it ("CA",
// "Cert", "Key", or "Cert and Key" when both read but do not make a pair).
type FileError struct {
	Field string
	Err   error // names the file
}

func (e *FileError) Error() string { return e.Field + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// LoadTLS returns a client's TLS configuration: it trusts the
// certificates in the PEM file ca (else the system's), presents the client
// certificate in cert with its key in key (else none), and verifies the
// server's name serverName (else each address's host).
func LoadTLS(ca, cert, key, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if ca != "" {
		pem, err := os.ReadFile(ca)
		if err != nil {
			return nil, &FileError{"CA", err}
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, &FileError{"CA", fmt.Errorf("%s: no PEM certificate in the file", ca)}
		}
	}
	switch {
	case cert != "" && key == "":
		return nil, &FileError{"Key", errors.New("none, with a Cert: give both or neither")}
	case key != "" && cert == "":
		return nil, &FileError{"Cert", errors.New("none, with a Key: give both or neither")}
	case cert != "":
		certPEM, err := os.ReadFile(cert)
		if err != nil {
			return nil, &FileError{"Cert", err}
		}
		keyPEM, err := os.ReadFile(key)
		if err != nil {
			return nil, &FileError{"Key", err}
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, &FileError{"Cert and Key", fmt.Errorf("%s and %s: %w", cert, key, err)}
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
