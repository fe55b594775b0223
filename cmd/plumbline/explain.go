package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/internal/pgstore"
	"plumbline/internal/query"
	"plumbline/internal/terminal"
	"plumbline/reports"
	"plumbline/reports/answer"
	"plumbline/reports/ask"
)

func explain(ctx context.Context, args []string, s *streams) error {
	f := newFlags("explain", helpText("explain"), s)
	db := f.string("db", "", "PostgreSQL connection `string`, to match names against the directory")
	run := f.string("run", "", "PostgreSQL connection `string`: also run the statement under EXPLAIN ANALYZE")
	catalogDir := f.string("catalog", "", "catalogue `directory` (default: the embedded demo catalogue)")
	nowFlag := f.string("now", "", "resolve periods as of this RFC 3339 `moment` instead of the clock")
	tool, raw, err := toolCall(f, args, s.in)
	if err != nil {
		return err
	}
	cat, now, err := catalogAt(*catalogDir, *nowFlag)
	if err != nil {
		return err
	}
	dsn := *run
	if dsn == "" {
		dsn = *db
	}
	dry := &reports.DryRun{}
	var st *pgstore.Store
	if dsn != "" {
		if st, err = pgstore.Open(ctx, dsn, cat, nil); err != nil {
			return err
		}
		defer st.Close()
		dry.Store = st
	} else if dry.Store, err = reports.KeysOnly(cat, tool, raw, now); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	engine := reports.New(cat, dry, &reports.Options{Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	ans := engine.Call(ctx, ask.Caller{Person: "explain", Client: "plumbline explain"}, tool, raw)
	switch ans.Body.(type) {
	case *answer.Refused, *reports.CandidatesAnswer:
		// Nothing was planned: say why, as ask would.
		body, err := json.Marshal(ans.Body)
		if err == nil {
			err = terminal.Answer(body, s.err, s.err)
		}
		if err != nil {
			return err
		}
		return exitError{1}
	}
	fmt.Fprintf(s.out, "As of %s in %s, the call resolves to:\n", now.In(cat.Zone()).Format(time.RFC3339), cat.Zone())

	if body, ok := ans.Body.(*answer.Report); ok {
		resolved, _ := json.MarshalIndent(map[string]any{"request": body.Request, "period": body.Period}, "", "  ")
		fmt.Fprintf(s.out, "%s\n", resolved)
	}
	if len(dry.Plans) == 0 {
		fmt.Fprintf(s.out, "\nThe %s tool runs no report query.\n", tool)
		return nil
	}
	for i, plan := range dry.Plans {
		stmt, params, err := query.Build(plan)
		if err != nil {
			return err
		}
		terminal.Query(s.out, i, len(dry.Plans), stmt, params)
		if *run == "" {
			continue
		}
		lines, err := st.Explain(ctx, plan)
		if err != nil {
			return fmt.Errorf("EXPLAIN ANALYZE: %w", err)
		}
		fmt.Fprintf(s.out, "\nEXPLAIN (ANALYZE, BUFFERS):\n%s\n", strings.Join(lines, "\n"))
	}
	fmt.Fprintf(s.out, "\nThe SQL reads the sources through the views that return the rows the transaction's caller may see (%s);\n"+
		"to run it by hand as someone who sees the whole floor, first run: SELECT set_config('%s', 'floor', false);\n", query.SeenSchema, query.DefaultReachSetting)
	if dsn == "" {
		fmt.Fprintln(s.out, "\nWithout a database, team and agent keys are taken as given: not checked against the directory.")
	}
	return nil
}

// toolCall parses a command's flags, which may stand before, between or
// after its arguments, and reads from those arguments TOOL and its JSON
// arguments, from the second positional argument or else standard input.
func toolCall(f *flags, args []string, in io.Reader) (string, json.RawMessage, error) {
	rest, err := f.parseInterspersed(args)
	if err != nil {
		return "", nil, err
	}
	if len(rest) == 0 || len(rest) > 2 {
		return "", nil, fmt.Errorf("%w: give a tool name and its JSON arguments (or the arguments on standard input)", errUsage)
	}
	var raw []byte
	if len(rest) == 2 {
		raw = []byte(rest[1])
	} else {
		if raw, err = io.ReadAll(in); err != nil {
			return "", nil, err
		}
	}
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = []byte("{}")
	}
	if !json.Valid(raw) {
		return "", nil, fmt.Errorf("%w: the arguments must be one JSON object, as a client sends them", errUsage)
	}
	return rest[0], raw, nil
}

// catalogAt loads the catalogue in dir (the embedded demo catalogue when
// dir is empty) and reads the moment to answer as of, --now or the clock;
// a --now that is not a time is told before the catalogue is read.
func catalogAt(dir, now string) (*catalog.Catalog, time.Time, error) {
	t, err := moment(now)
	if err != nil {
		return nil, t, err
	}
	cat, err := loadCatalog(dir)
	if err != nil {
		return nil, t, fmt.Errorf("load catalogue:\n%w", err)
	}
	return cat, t, nil
}

// moment is --now, or the clock.
func moment(flag string) (time.Time, error) {
	if flag == "" {
		return time.Now(), nil
	}
	t, err := time.Parse(time.RFC3339, flag)
	if err != nil {
		return t, fmt.Errorf("%w: --now must be an RFC 3339 time such as 2026-11-18T14:30:00-05:00", errUsage)
	}
	return t, nil
}
