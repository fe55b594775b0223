package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"plumbline/internal/mcpserver"
	"plumbline/internal/oauth"
	"plumbline/internal/pgstore"
	"plumbline/reports"
)

const askHelp = `
Usage: plumbline ask [flags] TOOL [ARGUMENTS]

Call a tool from the terminal, as a client would, and print the figures as
an aligned table with each metric's definition, how far its data runs and
the notes underneath. ARGUMENTS is the JSON object a client sends as the
tool's arguments; without it, it is read from standard input.

Ask a running server with --url (its Streamable HTTP endpoint; --token sends
a bearer token), or a database directly with --db, which runs the report
engine in this process. --json prints the answer as the server sends it.

Null figures are printed as "null": no data, never zero.

Examples:
  plumbline ask --url http://127.0.0.1:8080/mcp sales '{"who":{"team":"Falcons"},"period":{"named":"last_week"}}'
  plumbline ask --db "$DSN" hours '{"who":{"floor":true},"period":{"named":"yesterday"},"group_by":"team"}'
  plumbline ask --url https://plumbline.example/mcp --json metric_definitions '{}'
`

func ask(ctx context.Context, args []string, s *streams) error {
	f := newFlags("ask", askHelp, s)
	url := f.string("url", "", "the server's MCP `endpoint`, e.g. http://127.0.0.1:8080/mcp")
	token := f.string("token", "", "bearer `token` to send to --url")
	db := f.string("db", "", "PostgreSQL connection `string`: run the engine here instead of asking a server")
	catalogDir := f.string("catalog", "", "catalogue `directory` with --db (default: the embedded demo catalogue)")
	nowFlag := f.string("now", "", "with --db, answer as of this RFC 3339 `moment` instead of the clock")
	asJSON := f.Bool("json", false, "print the answer's JSON as the server sends it")
	rest, err := f.parseInterspersed(args)
	if err != nil {
		return err
	}
	tool, raw, err := toolCall(rest, s.in)
	if err != nil {
		return err
	}
	var body []byte
	var refused bool
	switch {
	case (*url == "") == (*db == ""):
		return fmt.Errorf("%w: give one of --url (a server) or --db (a database)", errUsage)
	case *url != "":
		body, refused, err = askServer(ctx, *url, *token, tool, raw)
	default:
		body, refused, err = askDatabase(ctx, *db, *catalogDir, *nowFlag, tool, raw)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		var b bytes.Buffer
		if err := json.Indent(&b, body, "", "  "); err != nil {
			return fmt.Errorf("the answer is not JSON: %w", err)
		}
		fmt.Fprintln(s.out, b.String())
	} else if err := printAnswer(body, s.out, s.err); err != nil {
		return err
	}
	if refused {
		return exitError{1}
	}
	return nil
}

// askServer calls a tool on a server over Streamable HTTP.
func askServer(ctx context.Context, url, token, tool string, raw json.RawMessage) ([]byte, bool, error) {
	client := &http.Client{Timeout: 2 * time.Minute}
	if token != "" {
		client.Transport = oauth.BearerTransport(token, http.DefaultTransport)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "plumbline-ask", Version: mcpserver.Version}, nil).Connect(ctx, tr, nil)
	if err != nil {
		return nil, false, fmt.Errorf("connect to %s: %w", url, err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: raw})
	if err != nil {
		return nil, false, fmt.Errorf("call %s: %w", tool, err)
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		return b, res.IsError, err
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return []byte(t.Text), res.IsError, nil
		}
	}
	return nil, res.IsError, errors.New("the server answered with no content")
}

// askDatabase answers a call with the engine in this process.
func askDatabase(ctx context.Context, dsn, catalogDir, nowFlag, tool string, raw json.RawMessage) ([]byte, bool, error) {
	now, err := moment(nowFlag)
	if err != nil {
		return nil, false, err
	}
	cat, err := loadCatalog(catalogDir)
	if err != nil {
		return nil, false, fmt.Errorf("load catalogue:\n%w", err)
	}
	st, err := pgstore.Open(ctx, dsn, cat, nil)
	if err != nil {
		return nil, false, err
	}
	defer st.Close()
	engine := reports.New(cat, st, &reports.Options{Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler)})
	ans := engine.Call(ctx, reports.Caller{Person: "terminal", Client: "plumbline ask"}, tool, raw)
	b, err := json.Marshal(ans.Body)
	return b, ans.Refusal != nil, err
}

// answer is any tool's answer read as the engine's own types: the fields
// the table view reads, whichever tool answered.
type answer struct {
	Error   *reports.Refusal
	Request reports.Echo
	reports.Governed
	Columns    []string
	Rows       [][]any
	Sections   json.RawMessage // a canned report's, printed by printSections
	Truncated  bool
	Candidates []reports.Candidate
}

// through says how far a metric's or a source's data runs.
func through(t reports.DataThrough) string {
	if t.RunsTo == nil {
		return "no data"
	}
	s := "runs to " + *t.RunsTo
	if t.CompleteThrough != nil {
		s += ", complete through " + *t.CompleteThrough
	}
	return s
}

// printAnswer prints an answer for a person: a refusal on errw, candidates,
// or the figures as a table with what they mean underneath. An answer with
// no rows (definitions, health) is printed as indented JSON.
func printAnswer(body []byte, w, errw io.Writer) error {
	var a answer
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		return fmt.Errorf("the answer is not a plumbline answer: %w", err)
	}
	switch {
	case a.Error != nil:
		fmt.Fprintf(errw, "refused (%s): %s %s\n", a.Error.Code, a.Error.Argument, a.Error.Rule)
		if len(a.Error.Choices) > 0 {
			fmt.Fprintf(errw, "  choices: %s\n", strings.Join(a.Error.Choices, ", "))
		}
		return nil
	case a.Candidates != nil:
		fmt.Fprintln(w, "Several match; no figures. Candidates:")
		table(w, []string{"key", "name", "team", "left_on"}, candidateRows(a.Candidates))
	case a.Columns != nil:
		table(w, a.Columns, a.Rows)
		if a.Truncated {
			fmt.Fprintln(w, "(truncated: more rows than shown)")
		}
	case a.Sections != nil:
		printSections(w, a.Sections)
	default:
		var b bytes.Buffer
		json.Indent(&b, body, "", "  ")
		fmt.Fprintln(w, b.String())
		return nil
	}
	a.printContext(w)
	return nil
}

func candidateRows(cs []reports.Candidate) [][]any {
	var rows [][]any
	for _, c := range cs {
		rows = append(rows, []any{c.AgentKey + c.TeamKey, c.Name, c.Team, c.Left})
	}
	return rows
}

// printSections prints the tables of a canned report's sections: any
// object or list of objects with columns and rows, titled by its key or its
// title.
func printSections(w io.Writer, raw json.RawMessage) {
	type section struct {
		Title   string
		Columns []string
		Rows    [][]any
	}
	var list []section
	if json.Unmarshal(raw, &list) != nil {
		var byName map[string]section
		json.Unmarshal(raw, &byName)
		for _, name := range sortedNames(byName) {
			s := byName[name]
			if s.Title == "" {
				s.Title = name
			}
			list = append(list, s)
		}
	}
	for _, s := range list {
		fmt.Fprintf(w, "%s\n", s.Title)
		table(w, s.Columns, s.Rows)
		fmt.Fprintln(w)
	}
}

func sortedNames[V any](m map[string]V) []string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// printContext prints what the figures mean: period, definitions,
// freshness, partial figures and notes.
func (a *answer) printContext(w io.Writer) {
	if p := a.Period; p.Start != "" {
		days := "days"
		if p.Days == 1 {
			days = "day"
		}
		fmt.Fprintf(w, "\nPeriod: %s to %s (%d %s, %s)", p.Start, p.End, p.Days, days, p.TimeZone)
		if p.Named != "" {
			fmt.Fprintf(w, ", %s", p.Named)
		}
		fmt.Fprintln(w)
	}
	if who := a.Request.Who; who != nil {
		fmt.Fprintf(w, "Who: %s", who.Name)
		if who.Key != "" {
			fmt.Fprintf(w, " (%s %s)", who.Kind, who.Key)
		}
		fmt.Fprintln(w)
	}
	ids := a.Request.Metrics
	if ids == nil {
		ids = sortedNames(a.Metrics)
	}
	if len(a.Metrics) > 0 {
		fmt.Fprintln(w, "\nDefinitions:")
	}
	for _, id := range ids {
		m := a.Metrics[id]
		if m == nil {
			continue
		}
		fmt.Fprintf(w, "  %s: %s (%s", id, m.Label, m.Unit)
		if m.SalesBasis != "" {
			fmt.Fprintf(w, ", %s basis", m.SalesBasis)
		}
		fmt.Fprintln(w, ")")
		for _, line := range wrap(m.Definition+m.DefinitionRef, 88) {
			fmt.Fprintf(w, "    %s\n", line)
		}
		if m.Formula != "" {
			fmt.Fprintf(w, "    formula: %s, from %s\n", m.Formula, m.Source)
		}
		fmt.Fprintf(w, "    data %s\n", through(m.DataThrough))
	}
	if len(a.DataThrough) > 0 {
		fmt.Fprintln(w, "\nData through:")
		for _, rel := range sortedNames(a.DataThrough) {
			fmt.Fprintf(w, "  %s: %s\n", rel, through(a.DataThrough[rel]))
		}
	}
	if a.Partial {
		fmt.Fprintf(w, "\nPartial: %s (these figures will still change)\n", strings.Join(a.PartialMetrics, ", "))
	}
	if len(a.Notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range a.Notes {
			for i, line := range wrap(n, 88) {
				if i == 0 {
					fmt.Fprintf(w, "  - %s\n", line)
				} else {
					fmt.Fprintf(w, "    %s\n", line)
				}
			}
		}
	}
	if a.CatalogVersion != "" {
		fmt.Fprintf(w, "\ncatalog_version %s\n", a.CatalogVersion)
	}
}

// table prints rows under their columns, aligned: numbers to the right,
// text to the left, null as "null".
func table(w io.Writer, columns []string, rows [][]any) {
	cells := make([][]string, len(rows))
	width := make([]int, len(columns))
	numeric := make([]bool, len(columns))
	for i, c := range columns {
		width[i] = len([]rune(c))
	}
	for r, row := range rows {
		cells[r] = make([]string, len(columns))
		for i := range columns {
			var v any
			if i < len(row) {
				v = row[i]
			}
			switch v := v.(type) {
			case nil:
				cells[r][i] = "null"
			case json.Number:
				cells[r][i] = v.String()
				numeric[i] = true
			default:
				cells[r][i] = fmt.Sprint(v)
			}
			width[i] = max(width[i], len([]rune(cells[r][i])))
		}
	}
	line := func(vals []string) {
		var b strings.Builder
		for i, v := range vals {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-len([]rune(v)))
			if numeric[i] {
				b.WriteString(pad + v)
			} else {
				b.WriteString(v + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(columns)
	rule := make([]string, len(columns))
	for i := range columns {
		rule[i] = strings.Repeat("-", width[i])
	}
	line(rule)
	for _, row := range cells {
		line(row)
	}
}
