// Package tlsfiles serves TLS from a certificate file and a key file,
// both PEM, taking them up again when either changes on disk, with modern
// defaults: TLS 1.2 or later and HTTP/2. A renewal replaces the files.
package tlsfiles
