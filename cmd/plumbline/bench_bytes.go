package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"plumbline/catalog"
	"plumbline/internal/bench"
)

// benchBytes is bench --bytes: it starts the server, measures the bytes of
// every answer of bench.ByteCalls in each mode, prints them as a table and
// writes them as JSON.
func benchBytes(ctx context.Context, server bench.Server, dsn, token, out string, s *streams) error {
	url, _, stop, err := server(ctx, dsn)
	if err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	defer stop()
	cat, err := catalog.Demo()
	if err != nil {
		return err
	}
	res, err := bench.MeasureBytes(ctx, url, token, time.Now(), cat.Zone())
	if err != nil {
		return err
	}
	res.WriteTable(s.out)
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "Wrote %s.\n", out)
	return nil
}
