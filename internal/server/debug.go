package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"runtime/metrics"
	"time"
)

// DebugPath is where --debug-addr serves the process's runtime figures.
const DebugPath = "/debug/runtime"

// ServeDebug serves the process's goroutine count and heap bytes as JSON
// at DebugPath, and the runtime's profiles at /debug/pprof/, on addr: a
// loopback address of its own, apart from the MCP listener and never
// behind it, so that plumbline-bench --soak watches a server without
// changing what it measures (reading the figures stops nothing). The
// returned func closes the listener. An empty addr serves nothing.
func ServeDebug(addr string, log *slog.Logger) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return nil, fmt.Errorf("%w: --debug-addr must be a loopback host:port, such as 127.0.0.1:6060", ErrUsage)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+DebugPath, func(w http.ResponseWriter, _ *http.Request) {
		heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(heap)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"goroutines": runtime.NumGoroutine(), "heap_bytes": heap[0].Value.Uint64()})
	})
	// The standard profiles, for go tool pprof, on the same loopback listener.
	mux.HandleFunc("GET /debug/pprof/", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("the debug listener stopped", "err", err)
		}
	}()
	log.Info("serving runtime figures", "debug", "http://"+ln.Addr().String()+DebugPath)
	return func() { hs.Close() }, nil
}
