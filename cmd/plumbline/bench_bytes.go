package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
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
	printBytes(s.out, res)
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(s.err, "Wrote %s.\n", out)
	return nil
}

// printBytes writes a bytes run as an aligned table, one row per call and
// mode.
func printBytes(w io.Writer, res *bench.BytesResult) {
	fmt.Fprintf(w, "plumbline bench --bytes: tools/list %d bytes (%d on the wire)\n\n", res.ToolsList, res.ToolsListWire)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "call\tmode\ttext B\tfigures\tstructured B\tfigures\tresponse B\twire B\twire/structured\t")
	for _, c := range res.Calls {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f%%\t%d\t%.1f%%\t%d\t%d\t%.2f\t\n", c.Label, c.Mode, c.Text, 100*c.TextShare(),
			c.Structured, 100*c.StructuredShare(), c.Response, c.Wire, c.WireRatio())
	}
	tw.Flush()
	fmt.Fprintln(w, "\nfigures: the share of the block that is figures (rows and section totals, people, teams, freshness dates).")
	fmt.Fprintln(w, "response: the JSON-RPC response; wire: its bytes as sent (compressed from 1 KiB, as the client accepts gzip).")
}
