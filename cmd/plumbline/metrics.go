package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"plumbline/internal/telemetry"
)

// newMetrics returns the metrics of a server running build, when
// --metrics-addr names a listener, and nil otherwise.
func (sf *serverFlags) newMetrics(build telemetry.Build) *telemetry.Metrics {
	if *sf.metricsAddr == "" {
		return nil
	}
	return telemetry.NewMetrics(build)
}

// serveMetrics serves m at http://ADDR/metrics on a listener of its own, so
// that the scrape port can stay private while /mcp is public. It returns
// the URL served and a func that stops serving.
func serveMetrics(m *telemetry.Metrics, addr string, log *slog.Logger) (string, func(), error) {
	if m == nil {
		return "", func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("listen on --metrics-addr %s: %w", addr, err)
	}
	hs := m.Server()
	url := "http://" + ln.Addr().String() + "/metrics"
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	log.Info("serving Prometheus metrics", "metrics_url", url)
	return url, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(ctx)
	}, nil
}
