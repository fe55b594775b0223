package telemetry

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// collector is the transport under otlptrace's exporter, which turns spans
// into OTLP messages: it posts them as protobuf to a collector's OTLP/HTTP
// receiver, configured as the OpenTelemetry specification's exporter
// variables say. It stands in for otlptracehttp, which shares its
// configuration package with the gRPC exporter and so links all of gRPC
// into a server that never speaks it (opentelemetry-go#2579): 3.1 MB of
// plumbline's binary.
type collector struct {
	url     string
	headers http.Header
	gzip    bool
	timeout time.Duration
	client  *http.Client
	stop    chan struct{} // closed by Stop: uploads stop waiting to try again
}

// tracesPath is where an OTLP/HTTP receiver takes traces.
const tracesPath = "/v1/traces"

// collectorFor configures the transport from endpoint, a receiver's URL
// that overrides the variables (traces go to /v1/traces unless it has a
// path), and the OTEL_EXPORTER_OTLP_* variables, a signal's own
// (OTEL_EXPORTER_OTLP_TRACES_*) before the general ones.
func collectorFor(endpoint string) (*collector, error) {
	c := &collector{headers: http.Header{}, timeout: 10 * time.Second, stop: make(chan struct{})}
	target, err := targetOf(endpoint)
	if err != nil {
		return nil, err
	}
	c.url = target
	if name, v := otlpEnv("PROTOCOL"); v != "" && v != "http/protobuf" {
		return nil, fmt.Errorf("%s: plumbline sends traces as http/protobuf only", name)
	}
	if name, v := otlpEnv("HEADERS"); v != "" {
		for _, pair := range strings.Split(v, ",") {
			if strings.TrimSpace(pair) == "" {
				continue
			}
			k, val, ok := strings.Cut(pair, "=")
			k = strings.TrimSpace(k)
			val, err := url.PathUnescape(strings.TrimSpace(val))
			if !ok || !isToken(k) || err != nil || strings.ContainsAny(val, "\r\n\x00") {
				return nil, fmt.Errorf("%s: want name=value pairs separated by commas, each name a header name and each value percent-encoded", name)
			}
			c.headers.Set(k, val)
		}
	}
	if name, v := otlpEnv("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s: want a positive number of milliseconds", name)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch name, v := otlpEnv("COMPRESSION"); v {
	case "gzip":
		c.gzip = true
	case "", "none":
	default:
		return nil, fmt.Errorf("%s: want gzip or none", name)
	}
	tlsConfig, err := tlsFromEnv()
	if err != nil {
		return nil, err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	c.client = &http.Client{Transport: transport}
	return c, nil
}

// targetOf is the URL traces are posted to: endpoint, else
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, else
// OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces after its path.
func targetOf(endpoint string) (string, error) {
	const flag = "--otlp-endpoint"
	name, raw := flag, endpoint
	if raw == "" {
		name, raw = otlpEnv("ENDPOINT")
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: want an http:// or https:// URL, such as http://collector:4318", name)
	}
	switch {
	case name == "OTEL_EXPORTER_OTLP_ENDPOINT": // a base URL for every signal
		u.Path = path.Join("/", u.Path, tracesPath)
	case (u.Path == "" || u.Path == "/") && name == flag:
		u.Path = tracesPath
	case u.Path == "":
		u.Path = "/"
	}
	return u.String(), nil
}

// isToken says whether s can name a header: one or more of RFC 9110's
// token characters.
func isToken(s string) bool {
	for _, r := range s {
		if r > '~' || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return s != ""
}

// otlpEnv reads the exporter's variable for traces, else the general one,
// and says which it read.
func otlpEnv(key string) (name, value string) {
	name = "OTEL_EXPORTER_OTLP_TRACES_" + key
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return name, v
	}
	name = "OTEL_EXPORTER_OTLP_" + key
	return name, strings.TrimSpace(os.Getenv(name))
}

// tlsFromEnv is the TLS an https receiver is reached with: the system's
// roots, or those of the certificate file named, and a client certificate
// when one is named with its key.
func tlsFromEnv() (*tls.Config, error) {
	config := &tls.Config{MinVersion: tls.VersionTLS12}
	if name, file := otlpEnv("CERTIFICATE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		config.RootCAs = x509.NewCertPool()
		if !config.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: the file holds no PEM certificate", name)
		}
	}
	certName, cert := otlpEnv("CLIENT_CERTIFICATE")
	keyName, key := otlpEnv("CLIENT_KEY")
	if (cert == "") != (key == "") {
		return nil, fmt.Errorf("%s and %s: name both or neither", certName, keyName)
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return nil, fmt.Errorf("%s and %s: %w", certName, keyName, err)
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return config, nil
}

// Start does nothing: a connection is made when spans are first sent.
func (c *collector) Start(context.Context) error { return nil }

// Stop closes the connections kept open, and an upload waiting to try
// again gives up.
func (c *collector) Stop(context.Context) error {
	close(c.stop)
	c.client.CloseIdleConnections()
	return nil
}

// UploadTraces posts spans as one ExportTraceServiceRequest. A receiver
// that answers 429, 502, 503 or 504 is asked again, after the time it asks
// for (Retry-After) or a growing pause, within the timeout, which bounds
// the whole upload.
func (c *collector) UploadTraces(ctx context.Context, spans []*tracepb.ResourceSpans) error {
	body, err := exportRequest(spans)
	if err != nil {
		return err
	}
	if c.gzip {
		var zipped bytes.Buffer
		w := gzip.NewWriter(&zipped)
		w.Write(body)
		w.Close()
		body = zipped.Bytes()
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	for pause := 250 * time.Millisecond; ; pause = min(2*pause, 4*time.Second) {
		wait, err := c.post(ctx, body)
		if err == nil || wait < 0 {
			return err
		}
		if wait == 0 {
			wait = pause
		}
		if deadline, _ := ctx.Deadline(); time.Until(deadline) < wait {
			return err // asked to wait past the timeout
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (then %w)", err, ctx.Err())
		case <-c.stop:
			return err
		case <-time.After(wait):
		}
	}
}

// post sends body once. On failure, wait is how long to wait before asking
// again: zero for the exporter's own pause, negative for never.
func (c *collector) post(ctx context.Context, body []byte) (wait time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return -1, err
	}
	req.Header = c.headers.Clone()
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := c.client.Do(req)
	if err != nil {
		// A receiver that is not there, or not answering, fails the upload
		// at once: waiting for it would hold up every export behind this
		// one.
		return -1, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		return 0, nil
	}
	err = fmt.Errorf("the OTLP receiver answered %s", resp.Status)
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		if s, convErr := strconv.Atoi(resp.Header.Get("Retry-After")); convErr == nil && s > 0 {
			return time.Duration(s) * time.Second, err
		}
		return 0, err
	}
	return -1, err
}

// exportRequest encodes an ExportTraceServiceRequest, whose one field (1)
// is the repeated ResourceSpans: written here, since the message's Go type
// lives in a package that links gRPC.
func exportRequest(spans []*tracepb.ResourceSpans) ([]byte, error) {
	var b []byte
	var err error
	for _, rs := range spans {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(proto.Size(rs)))
		if b, err = (proto.MarshalOptions{UseCachedSize: true}).MarshalAppend(b, rs); err != nil {
			return nil, fmt.Errorf("encode spans: %w", err)
		}
	}
	return b, nil
}
