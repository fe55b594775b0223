// Package tlsfiles serves TLS from PEM certificate and key files, taken up
// again when either changes on disk. A renewal replaces the files; the
// defaults are modern: TLS 1.2 or later and HTTP/2.
package tlsfiles
