package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"
)

// health asks the server that serve's settings describe for /healthz, on
// this machine: the image's health check, where no other HTTP client is.
func health(ctx context.Context, args []string, s *streams) error {
	c := newServeCmd("health", s)
	if _, err := c.parse(args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(c.sf.Addr)
	if err != nil {
		return fmt.Errorf("%w: --addr must be host:port, such as 0.0.0.0:8080", errUsage)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: 5 * time.Second}
	scheme := "http"
	if c.sf.TLSCert != "" {
		scheme = "https"
		tc, err := healthTLS(c.sf.TLSCert, c.sf.auth.PublicURL, host)
		if err != nil {
			return err
		}
		client.Transport = &http.Transport{TLSClientConfig: tc}
	}
	target := scheme + "://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", target, resp.Status)
	}
	fmt.Fprintf(s.out, "%s: %s", target, body)
	return nil
}

// healthTLS verifies the server's certificate as the one in certFile (or
// one a system root vouches for) for the public URL's host, or else for
// host: the address is loopback, the name the certificate's.
func healthTLS(certFile, publicURL, host string) (*tls.Config, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		pool = x509.NewCertPool()
	}
	pem, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert: %w", err)
	}
	pool.AppendCertsFromPEM(pem)
	name := host
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		name = u.Hostname()
	}
	return &tls.Config{RootCAs: pool, ServerName: name, MinVersion: tls.VersionTLS12}, nil
}
