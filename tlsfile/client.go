package tlsfile

import (
	"crypto/tls"
	"errors"
)

// ClientFiles name the PEM files of a client's TLS configuration. Each may
// be empty.
type ClientFiles struct {
	CA   string // the CAs that sign the server's certificate; empty: the system's
	Cert string // the client's certificate chain, for mutual TLS (with Key)
	Key  string // its key
}

// ClientConfig returns a client's TLS configuration from f: TLS 1.2 at
// least, trusting f.CA (else the system's roots), presenting f.Cert (else
// no certificate), and verifying the server's name serverName (else the
// host dialled). The error names the file at fault.
func ClientConfig(f ClientFiles, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if f.CA != "" {
		pool, err := loadPool(f.CA)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	switch {
	case f.Cert != "" && f.Key == "":
		return nil, &FileError{f.Cert, errors.New("a certificate without its key")}
	case f.Key != "" && f.Cert == "":
		return nil, &FileError{f.Key, errors.New("a key without its certificate")}
	case f.Cert != "":
		pair, err := loadPair(f.Cert, f.Key)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
