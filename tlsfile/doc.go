// Package tlsfile serves TLS from PEM files that change while a server
// runs: a certificate with its key and, for mutual TLS, the CAs that sign
// client certificates.
//
// A Watcher reads the files and hands them to every handshake through
// tls.Config's GetConfigForClient. It reads them again when they change
// (Run polls their size and modification time) or when asked (Reload, on
// SIGHUP say). Connections open at a reload keep the certificate they
// began with; new ones get the new one. A reload that fails (a missing
// file, a key that does not match) keeps what was served before.
//
// ClientConfig reads a client's files: the CAs it trusts, and its own
// certificate and key for mutual TLS.
//
// The package uses the standard library only.
package tlsfile
