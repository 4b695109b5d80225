package tlsfile

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// loadPair reads the certificate chain in certFile and its key in keyFile.
// The error names the file at fault.
func loadPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, &FileError{certFile, unwrapPath(err)}
	}
	if err := checkCert(certPEM); err != nil {
		return tls.Certificate{}, &FileError{certFile, err}
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, &FileError{keyFile, unwrapPath(err)}
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		// The certificate parsed: the key is at fault.
		return tls.Certificate{}, &FileError{keyFile, fmt.Errorf("as the key of %s: %w", certFile, err)}
	}
	return pair, nil
}

// checkCert reports a certificate file without a certificate, or whose
// first certificate does not parse.
func checkCert(b []byte) error {
	for {
		var block *pem.Block
		block, b = pem.Decode(b)
		switch {
		case block == nil:
			return errors.New("no PEM certificate in the file")
		case block.Type == "CERTIFICATE":
			_, err := x509.ParseCertificate(block.Bytes)
			return err
		}
	}
}

// loadPool reads the CA certificates in file.
func loadPool(file string) (*x509.CertPool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, &FileError{file, unwrapPath(err)}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		return nil, &FileError{file, errors.New("no PEM certificate in the file")}
	}
	return pool, nil
}

// unwrapPath drops the path an *os.PathError repeats: FileError names the
// file.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}
