package grants

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"plumbline/catalog"
	"plumbline/internal/query"
	sqlfiles "plumbline/sql"
)

// This file reads and checks grant files.

// Grains a granted relation may have.
const (
	GrainAgent    = "agent"    // rows name or key one agent
	GrainTeam     = "team"     // rows are teams
	GrainAlias    = "alias"    // rows carry only an alias, never a person
	GrainPipeline = "pipeline" // rows describe the data pipeline's runs, never a person
)

// Grains lists every grain.
var Grains = []string{GrainAgent, GrainTeam, GrainAlias, GrainPipeline}

// The roles a grant file may grant to, by their placeholders.
const (
	ToReader  = "reader"  // sql/grants/: the relations reports read
	ToAnalyst = "analyst" // sql/analyst/: the relations the analyst's door reads
)

// Grant is one reviewed grant file.
type Grant struct {
	File       string
	To         string   // ToReader or ToAnalyst
	Relation   string   // schema.name
	Columns    []string // the columns granted; nil for every column
	Grain      string
	ReviewedBy string
	ReviewedOn time.Time
	Why        string
	sql        string
}

// Load reads every grant file to the reader in fsys, sorted by relation. It
// reports every file that breaks the rules at once.
func Load(fsys fs.FS) ([]*Grant, error) { return LoadFor(fsys, ToReader) }

// LoadFor reads every grant file to role (ToReader or ToAnalyst) in fsys,
// sorted by relation.
func LoadFor(fsys fs.FS, role string) ([]*Grant, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("read grant files: %w", err)
	}
	var out []*Grant
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			errs = append(errs, fmt.Errorf("%s: the grants directory holds only <schema>.<relation>.sql files", e.Name()))
			continue
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		g, err := parse(e.Name(), string(body), role)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, g)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no grant files: the %s could read nothing; add one <schema>.<relation>.sql per relation it reads", role)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Relation < out[j].Relation })
	return out, nil
}

// LoadDir reads the reader's grant files in dir, or the embedded demo
// floor's when dir is empty.
func LoadDir(dir string) ([]*Grant, error) {
	if dir == "" {
		return Load(sqlfiles.Grants())
	}
	return Load(os.DirFS(dir))
}

// LoadAnalystDir reads the analyst's grant files in dir, or the embedded
// demo floor's when dir is empty.
func LoadAnalystDir(dir string) ([]*Grant, error) {
	if dir == "" {
		return LoadFor(sqlfiles.AnalystGrants(), ToAnalyst)
	}
	return LoadFor(os.DirFS(dir), ToAnalyst)
}

// ReaderReads returns the relations the reader reads, sorted: those its
// grant files gs name, but that it reads each of cat's sources only through
// the views that filter it by reach (query.SeenNames), and with rollups the
// record of what they were built from (query.RollupsRelation).
func ReaderReads(gs []*Grant, cat *catalog.Catalog) []string {
	granted := Relations(gs)
	out := slices.Clone(granted)
	rollups := false
	for _, src := range cat.Sources() {
		if slices.Contains(granted, src.Relation) {
			out = append(slices.DeleteFunc(out, func(rel string) bool { return rel == src.Relation }), query.SeenNames(src)...)
			rollups = rollups || src.Rollup != ""
		}
	}
	if rollups {
		out = append(out, query.RollupsRelation)
	}
	sort.Strings(out)
	return out
}

// Relations returns the relations the grants name, sorted.
func Relations(gs []*Grant) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Relation
	}
	sort.Strings(out)
	return out
}

// Ungranted returns the relations cat reads that no grant of gs names, in
// the catalogue's order: the reader cannot be granted them, so the reports
// that need them fail.
func Ungranted(cat *catalog.Catalog, gs []*Grant) []string {
	granted := Relations(gs)
	var out []string
	for _, rel := range cat.Relations() {
		if !slices.Contains(granted, rel) {
			out = append(out, rel)
		}
	}
	return out
}

var (
	relationName = regexp.MustCompile(`^[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*$`)
	headerLine   = regexp.MustCompile(`^--\s*([A-Za-z][A-Za-z ]*?)\s*:\s*(.*)$`)
	continuation = regexp.MustCompile(`^--\s{2,}(\S.*)$`)
	usageStmt    = regexp.MustCompile(`^(?i)grant usage on schema ([a-z0-9_]+) to \{\{(\w+)\}\}$`)
	selectStmt   = regexp.MustCompile(`^(?i)grant select(?: ?\(([a-z0-9_, ]+)\))? on (?:table )?([a-z0-9_.]+) to \{\{(\w+)\}\}$`)
	spaces       = regexp.MustCompile(`\s+`)
)

var headerKeys = []string{"relation", "grain", "reviewed by", "reviewed on", "why"}

// parse reads one grant file to role: its header, then its statements.
func parse(file, body, role string) (*Grant, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...))
	}
	lines := strings.Split(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	header := map[string]string{}
	last, n := "", 0
	for ; n < len(lines) && strings.HasPrefix(lines[n], "--"); n++ {
		line := strings.TrimRight(lines[n], " \t")
		if m := continuation.FindStringSubmatch(line); m != nil && last != "" {
			header[last] += " " + m[1]
			continue
		}
		m := headerLine.FindStringSubmatch(line)
		if m == nil {
			return nil, fail("line %d: header lines read `-- Key: value`, with the keys Relation, Grain, Reviewed by, Reviewed on and Why", n+1)
		}
		key := strings.ToLower(m[1])
		if !slices.Contains(headerKeys, key) {
			return nil, fail("line %d: unknown header key %q; the keys are Relation, Grain, Reviewed by, Reviewed on and Why", n+1, m[1])
		}
		if _, dup := header[key]; dup {
			return nil, fail("line %d: %s is given twice", n+1, m[1])
		}
		header[key], last = strings.TrimSpace(m[2]), key
	}
	for _, key := range headerKeys {
		if header[key] == "" {
			return nil, fail("the header lacks %q; every grant names its relation, its grain and its review (who, when and why)", key)
		}
	}
	g := &Grant{File: file, To: role, Relation: header["relation"], Grain: header["grain"],
		ReviewedBy: header["reviewed by"], Why: header["why"], sql: body}
	var err error
	if g.ReviewedOn, err = time.Parse(time.DateOnly, header["reviewed on"]); err != nil {
		return nil, fail("Reviewed on must be a date, YYYY-MM-DD")
	}
	if !relationName.MatchString(g.Relation) {
		return nil, fail("Relation must be schema.name in lower case")
	}
	if file != g.Relation+".sql" {
		return nil, fail("the file for %s must be named %s.sql", g.Relation, g.Relation)
	}
	if !slices.Contains(Grains, g.Grain) {
		return nil, fail("Grain must be one of %s", strings.Join(Grains, ", "))
	}
	return g, g.statements(strings.Join(lines[n:], "\n"), fail)
}

// statements checks that a file grants its own relation to its role and
// nothing else.
func (g *Grant) statements(body string, fail func(string, ...any) error) error {
	schema, _, _ := strings.Cut(g.Relation, ".")
	rule := fmt.Sprintf("a grant file holds only `GRANT USAGE ON SCHEMA %s TO {{%s}};` and `GRANT SELECT [(columns)] ON %s TO {{%s}};`", schema, g.To, g.Relation, g.To)
	usage, selects := false, 0
	for _, stmt := range strings.Split(stripComments(body), ";") {
		stmt = strings.TrimSpace(spaces.ReplaceAllString(stmt, " "))
		switch m, s := usageStmt.FindStringSubmatch(stmt), selectStmt.FindStringSubmatch(stmt); {
		case stmt == "":
		case m != nil && m[1] == schema && m[2] == g.To:
			usage = true
		case s != nil && s[2] == g.Relation && s[3] == g.To:
			selects++
			if s[1] != "" {
				for _, c := range strings.Split(s[1], ",") {
					g.Columns = append(g.Columns, strings.TrimSpace(c))
				}
			}
		default:
			return fail("%s", rule)
		}
	}
	if !usage || selects != 1 {
		return fail("%s", rule)
	}
	return nil
}

func stripComments(body string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
