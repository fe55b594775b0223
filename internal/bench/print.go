package bench

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// This file writes each kind of run's results for a terminal.

// WriteTable writes the results as aligned tables: the paired rounds and
// round trips, then calls per second, one row per tool and server, under a
// line saying what floor and which settings they were measured on.
func (res *Result) WriteTable(w io.Writer, agents, days, perMinute int, fsync bool) {
	durability := "durable commits"
	if !fsync {
		durability = "commits not waiting for the disk"
	}
	fmt.Fprintf(w, "plumbline-bench: %d agents, %d days; limit %d calls a minute per person; %s\n", agents, days, perMinute, durability)
	if d := res.Durability; d != nil {
		fmt.Fprintf(w, "request-log row committed synchronously %.2f ms, lazily %.2f ms (p50; the disk adds %+.2f ms, paired)\n", d.Sync, d.Lazy, d.Added)
	}
	for _, m := range res.Memory {
		fmt.Fprintf(w, "%s: peak RSS %.1f MiB over the measured calls (%.1f MiB at the end); at most %.1f MiB its own memory, %.1f MiB pages of its binary and libraries\n",
			m.Server, float64(m.PeakKiB)/1024, float64(m.EndKiB)/1024, float64(m.AnonPeakKiB)/1024, float64(m.FilePeakKiB)/1024)
	}
	fmt.Fprintln(w)
	ms := func(v float64) string { return fmt.Sprintf("%.2f", v) }
	opt := func(v *float64, signed bool) string {
		switch {
		case v == nil:
			return "-"
		case signed:
			return fmt.Sprintf("%+.2f", *v)
		}
		return ms(*v)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\tserver\traw SQL p50\tMCP p50\tadded\tserver p50\tserver added\tround trips\t+ off path\tbytes\tfigures\t")
	for _, t := range res.Tools {
		for i, sr := range t.Servers {
			rawP50, added := "-", "-"
			if t.Statements > 0 {
				rawP50, added = ms(t.RawP50), fmt.Sprintf("%+.2f", sr.Added)
			}
			bytes, figures := "", ""
			if i == 0 {
				bytes, figures = strconv.Itoa(t.Bytes), fmt.Sprintf("%.0f%%", 100*float64(t.FigureBytes)/float64(max(t.Bytes, 1)))
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.2f\t%s\t%s\t\n", t.Tool, sr.Server, rawP50, ms(sr.P50), added,
				opt(sr.ServerP50, false), opt(sr.ServerAdd, true), sr.RoundTrips, sr.Background, bytes, figures)
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	res.writeStages(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "tool\tserver\t"
	for _, l := range res.Levels {
		head += fmt.Sprintf("c%d calls/s\t(÷raw)\tp99 ms\t", l)
	}
	fmt.Fprintln(tw, head)
	for _, t := range res.Tools {
		if t.Statements > 0 {
			line := t.Tool + "\traw SQL\t"
			for _, r := range t.RawRate {
				line += fmt.Sprintf("%.0f\t\t%.2f\t", r.PerSecond, r.P99)
			}
			fmt.Fprintln(tw, line)
		}
		for _, sr := range t.Servers {
			line := t.Tool + "\t" + sr.Server + "\t"
			for _, r := range sr.Rate {
				ratio := "-"
				if x, ok := t.Ratio(sr, r.Concurrency); ok {
					ratio = fmt.Sprintf("%.2f×", x)
				}
				errs := ""
				if r.Errors > 0 {
					errs = fmt.Sprintf(" (%d errors)", r.Errors)
				}
				line += fmt.Sprintf("%.0f%s\t%s\t%.2f\t", r.PerSecond, errs, ratio, r.P99)
			}
			fmt.Fprintln(tw, line)
		}
	}
	tw.Flush()
	res.writeCPU(w)
	fmt.Fprintln(w, "\nadded: the median over paired rounds of (MCP call − the same report SQL with pgx) in one round, as the client sees it;")
	fmt.Fprintln(w, "server added: the same with the server's own time (Server-Timing). round trips: to PostgreSQL per call, on the request path;")
	fmt.Fprintln(w, "+ off path: on average beyond that, counted one call at a time with a pause after each (outcomes written in batches,")
	fmt.Fprintln(w, "one batch a call when calls come one at a time, shared by the calls of each 100 ms under load; caches refreshed now and then).")
}

// writeCPU writes the processor time a call took at each level, by whom,
// when it was measured.
func (res *Result) writeCPU(w io.Writer) {
	var table bytes.Buffer
	measured := false
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "tool\tserver\t"
	for _, l := range res.Levels {
		head += fmt.Sprintf("c%d client\tserver\tdatabase\ttotal\traw/own\t", l)
	}
	fmt.Fprintln(tw, head)
	row := func(t *ToolResult, sr *ServerResult) {
		levels, server := t.RawRate, "raw SQL"
		if sr != nil {
			levels, server = sr.Rate, sr.Server
		}
		line := t.Tool + "\t" + server + "\t"
		for i, r := range levels {
			c := r.CPU
			if c == nil {
				line += "-\t-\t-\t-\t-\t"
				continue
			}
			measured = true
			line += fmt.Sprintf("%.2f\t%.2f\t%.2f\t%.2f\t", c.Client, c.Server, c.Database, c.Total())
			ratio, ok := 0.0, false
			if sr != nil {
				ratio, ok = t.CPURatio(sr, i)
			}
			if ok {
				line += fmt.Sprintf("%.2f\t", ratio)
			} else {
				line += "-\t"
			}
		}
		fmt.Fprintln(tw, line)
	}
	for _, t := range res.Tools {
		if t.Statements > 0 {
			row(t, nil)
		}
		for _, sr := range t.Servers {
			row(t, sr)
		}
	}
	tw.Flush()
	if !measured {
		return
	}
	fmt.Fprintln(w)
	w.Write(table.Bytes())
	fmt.Fprintln(w, "\nprocessor time per call, ms, while calls/s were measured: client, bench itself (the go-sdk client, or pgx for the raw SQL);")
	fmt.Fprintln(w, "server, the server's process; database, PostgreSQL's processes (to the clock tick, 10 ms, over the level's calls);")
	fmt.Fprintln(w, "raw/own, the raw SQL's database time over the server's and the database's for the server's call: 1 costs nothing beyond the SQL.")
}

// writeStages writes where each server's time goes, stage by stage, when
// the servers say (Server-Timing).
func (res *Result) writeStages(w io.Writer) {
	var names []string
	for _, t := range res.Tools {
		for _, sr := range t.Servers {
			for _, st := range sr.Stages {
				if !slices.Contains(names, st.Name) {
					names = append(names, st.Name)
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "tool\tserver\t%s p50\t\n", strings.Join(names, " p50\t"))
	for _, t := range res.Tools {
		for _, sr := range t.Servers {
			line := t.Tool + "\t" + sr.Server + "\t"
			for _, name := range names {
				i := slices.IndexFunc(sr.Stages, func(st Stage) bool { return st.Name == name })
				if i < 0 {
					line += "-\t"
					continue
				}
				line += fmt.Sprintf("%.2f\t", sr.Stages[i].P50)
			}
			fmt.Fprintln(tw, line)
		}
	}
	tw.Flush()
	fmt.Fprintln(w, "\nthe server's time by stage, as it says (Server-Timing), median over the paired rounds: auth, the token check in front")
	fmt.Fprintln(w, "of a call (a token seen before is checked within the admission); request_log, the admission's round trip (the call's")
	fmt.Fprintln(w, "row, the limit, the token's row); report_sql, the report's round trip; log_flush, the wait for the call's row to reach")
	fmt.Fprintln(w, "the disk left once the report is done (the flush runs beside the report); assembly, everything else.")
	fmt.Fprintln(w)
}

// WriteTable writes a bytes run as an aligned table, one row per call and
// mode.
func (res *BytesResult) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "plumbline-bench --bytes: tools/list %d bytes (%d on the wire)\n\n", res.ToolsList, res.ToolsListWire)
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

// SoakHeader heads the soak's table, a row a minute (SoakRow.Line).
const SoakHeader = "minute   calls  errors   p50 ms   p99 ms  calls/s  RSS MiB  heap MiB  goroutines  threads  pg conns   log rows  log MiB"

// Line is the row's line of the soak's table, aligned under SoakHeader.
func (r *SoakRow) Line() string {
	return fmt.Sprintf("%6d  %6d  %6d  %7.2f  %7.2f  %7.1f  %7.1f  %8.1f  %10d  %7d  %8d  %9d  %7.1f", r.Minute, r.Calls, r.Errors, r.P50, r.P99,
		r.PerSecond, float64(r.RSSKiB)/1024, float64(r.HeapBytes)/(1<<20), r.Goroutines, r.Threads, r.Connections, r.LogRows, float64(r.LogBytes)/(1<<20))
}

// WriteVerdict writes the verdict: each judged figure at both ends, the
// others beside, and pass or fail with what moved.
func (res *SoakResult) WriteVerdict(w io.Writer) {
	v := res.Verdict
	fmt.Fprintln(w)
	if v.Window == 0 {
		fmt.Fprintf(w, "verdict: FAIL: %s\n", strings.Join(v.Failed, "; "))
		return
	}
	fmt.Fprintf(w, "verdict: rows %d-%d against rows %d-%d, the median of each figure's rows at each end; judged within %.0f%%:\n",
		v.First[0], v.First[1], v.Last[0], v.Last[1], 100*Tolerance)
	line := func(j Judged, judged bool) {
		mark := ""
		if judged {
			mark = "within"
			if !j.Within {
				mark = "BEYOND"
			}
		}
		fmt.Fprintf(w, "  %-15s %12.2f → %12.2f  %+7.1f%%  %s\n", j.Name, j.First, j.Last, 100*j.Change, mark)
	}
	for _, j := range v.Figures {
		line(j, true)
	}
	fmt.Fprintln(w, "  not judged (the log is meant to grow):")
	for _, j := range v.Others {
		line(j, false)
	}
	fmt.Fprintf(w, "  answers not what they must be: %d\n", v.Errors)
	for _, e := range res.FirstErrors {
		fmt.Fprintf(w, "    %s\n", e)
	}
	if v.Pass {
		fmt.Fprintln(w, "verdict: PASS")
	} else {
		fmt.Fprintf(w, "verdict: FAIL: %s\n", strings.Join(v.Failed, "; "))
	}
}
