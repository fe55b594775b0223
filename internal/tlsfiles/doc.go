// Package tlsfiles serves TLS from a certificate file and a key file,
// both PEM, taking them up again when either changes on disk (a renewal
// replaces them), with modern defaults: TLS 1.2 or later and HTTP/2.
package tlsfiles
