package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// This file reads catalogue files into raw structs and merges them.

type rawFile struct {
	At         Pos
	Version    *int                   `yaml:"version,required"`
	TimeZone   *ref                   `yaml:"time_zone"`
	WeekStarts *ref                   `yaml:"week_starts"`
	Limits     *rawLimits             `yaml:"limits"`
	Roster     *rawRoster             `yaml:"roster"`
	Loads      *rawLoads              `yaml:"loads"`
	Targets    *rawTargets            `yaml:"targets"`
	Activity   *ref                   `yaml:"activity"`
	Sources    map[string]*rawSource  `yaml:"sources"`
	Bases      map[string]*rawBasis   `yaml:"bases"`
	Concepts   map[string]*rawConcept `yaml:"concepts"`
	Metrics    map[string]*rawMetric  `yaml:"metrics"`
	Reports    map[string]*rawReport  `yaml:"reports"`
	Periods    map[string]*rawPeriod  `yaml:"periods"`
}

type rawPeriod struct {
	At         Pos
	From       ref `yaml:"from,required"`
	To         ref `yaml:"to,required"`
	Definition ref `yaml:"definition,required"`
}

type rawLimits struct {
	At      Pos
	MaxDays *int `yaml:"max_days"`
	MaxRows *int `yaml:"max_rows"`
}

type rawRoster struct {
	At           Pos
	Teams        *rawTeams        `yaml:"teams,required"`
	Agents       *rawAgents       `yaml:"agents,required"`
	TeamHistory  *rawTeamHistory  `yaml:"team_history,required"`
	FloorHistory *rawFloorHistory `yaml:"floor_history,required"`
}

type rawTeams struct {
	At       Pos
	Relation ref `yaml:"relation,required"`
	Key      ref `yaml:"key,required"`
	Name     ref `yaml:"name,required"`
}

type rawAgents struct {
	At       Pos
	Relation ref `yaml:"relation,required"`
	Key      ref `yaml:"key,required"`
	Name     ref `yaml:"name,required"`
	Email    ref `yaml:"email,required"`
	Hired    ref `yaml:"hired,required"`
	Left     ref `yaml:"left,required"`
}

type rawTeamHistory struct {
	At       Pos
	Relation ref `yaml:"relation,required"`
	Agent    ref `yaml:"agent,required"`
	Team     ref `yaml:"team,required"`
	From     ref `yaml:"from,required"`
	To       ref `yaml:"to"`
}

type rawFloorHistory struct {
	At            Pos
	Relation      ref `yaml:"relation,required"`
	Team          ref `yaml:"team,required"`
	From          ref `yaml:"from,required"`
	To            ref `yaml:"to"`
	CountsAsSales ref `yaml:"counts_as_sales,required"`
	DecidedBy     ref `yaml:"decided_by,required"`
	Reason        ref `yaml:"reason,required"`
}

type rawLoads struct {
	At       Pos
	Relation ref `yaml:"relation,required"`
	Source   ref `yaml:"source,required"`
	Day      ref `yaml:"day,required"`
	Finished ref `yaml:"finished,required"`
}

type rawTargets struct {
	At          Pos
	Relation    ref `yaml:"relation,required"`
	Team        ref `yaml:"team,required"`
	Metric      ref `yaml:"metric,required"`
	PeriodKind  ref `yaml:"period_kind,required"`
	PeriodStart ref `yaml:"period_start,required"`
	Value       ref `yaml:"value,required"`
	SetBy       ref `yaml:"set_by,required"`
	SetAt       ref `yaml:"set_at,required"`
	Reason      ref `yaml:"reason,required"`
}

type rawSource struct {
	At          Pos
	Relation    ref        `yaml:"relation,required"`
	Grain       ref        `yaml:"grain,required"`
	Keys        rawKeys    `yaml:"keys,required"`
	Columns     []ref      `yaml:"columns,required"`
	Nullable    []ref      `yaml:"nullable"`
	Refresh     ref        `yaml:"refresh,required"`
	Load        ref        `yaml:"load"`
	Rollup      ref        `yaml:"rollup"`
	Settles     *rawSettle `yaml:"settles,required"`
	Bases       []ref      `yaml:"bases"`
	Description string     `yaml:"description,required"`
	Notes       []string   `yaml:"notes"`
}

type rawKeys struct {
	At    Pos
	Agent ref `yaml:"agent,required"`
	Day   ref `yaml:"day"`
	Time  ref `yaml:"time"`
}

type rawSettle struct {
	At        Pos
	DaysAfter *int `yaml:"days_after,required"`
	Time      ref  `yaml:"at,required"`
}

type rawBasis struct {
	At         Pos
	Label      string     `yaml:"label,required"`
	Definition string     `yaml:"definition,required"`
	Settles    *rawSettle `yaml:"settles"`
}

// rawConcept is written as plain text: `close_rate: "Share of …"`.
type rawConcept struct {
	At   Pos
	Text string
}

func (c *rawConcept) decodeNode(d *decoder, n *yaml.Node, at Pos) {
	c.At = at
	if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		d.errs.add(at, "write the definition as text a manager can read", "a concept is its definition text")
		return
	}
	c.Text = strings.TrimSpace(n.Value)
}

type rawMetric struct {
	At         Pos
	Label      string     `yaml:"label,required"`
	Unit       ref        `yaml:"unit,required"`
	Concept    ref        `yaml:"concept,required"`
	Source     ref        `yaml:"source"`
	Basis      ref        `yaml:"basis"`
	Sum        *ref       `yaml:"sum"`
	Ratio      *rawRatio  `yaml:"ratio"`
	Nulls      ref        `yaml:"nulls"`
	Target     *rawTarget `yaml:"target"`
	Compare    ref        `yaml:"compare"`
	Cumulative ref        `yaml:"cumulative"`
}

type rawTarget struct {
	At       Pos
	OverDays ref   `yaml:"over_days,required"`
	Gap      ref   `yaml:"gap"`
	Periods  []ref `yaml:"periods"`
}

type rawRatio struct {
	At          Pos
	Numerator   *rawPart `yaml:"numerator,required"`
	Denominator *rawPart `yaml:"denominator,required"`
}

// rawPart is a formula over the metric's source, or {source, sum} for a
// ratio that spans two sources.
type rawPart struct {
	At     Pos
	Source ref `yaml:"source,required"`
	Sum    ref `yaml:"sum,required"`
}

func (p *rawPart) decodeNode(d *decoder, n *yaml.Node, at Pos) {
	if n.Kind == yaml.ScalarNode {
		p.At = at
		p.Sum.decodeNode(d, n, at)
		return
	}
	type plain rawPart // without decodeNode, to decode the mapping form
	d.decodeStruct(n, reflect.ValueOf((*plain)(p)).Elem(), at, "ratio part")
}

type rawReport struct {
	At             Pos
	Title          string `yaml:"title,required"`
	Description    string `yaml:"description,required"`
	Metrics        []ref  `yaml:"metrics,required"`
	DefaultMetrics []ref  `yaml:"default_metrics"`
	GroupBy        []ref  `yaml:"group_by"`
}

// LoadDir loads the catalogue in a directory. Errors name files by their
// path under dir, as the caller wrote it.
func LoadDir(dir string) (*Catalog, error) {
	return Load(os.DirFS(dir), dir)
}

// Load loads the catalogue whose YAML files (*.yaml, *.yml) sit at the root
// of fsys. prefix is prepended to file names in errors. The error, if any, is
// an Errors listing every problem.
func Load(fsys fs.FS, prefix string) (*Catalog, error) {
	var errs errorList
	names, err := yamlFiles(fsys)
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		errs.add(Pos{File: prefix}, "a catalogue is a directory of .yaml files", "no catalogue files found")
		return nil, errs.err()
	}
	h := sha256.New()
	var files []*rawFile
	unreadable := false
	for _, name := range names {
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		h.Write([]byte(name + "\x00"))
		h.Write(body)
		h.Write([]byte{0})
		f := parseFile(filepath.Join(prefix, name), body, &errs)
		if f == nil {
			unreadable = true
			continue
		}
		files = append(files, f)
	}
	if unreadable {
		// Rules over the whole catalogue would only repeat the syntax error.
		return nil, errs.err()
	}
	merged := merge(files, &errs)
	cat := build(merged, &errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	for _, m := range cat.Metrics() {
		m.formula = m.writeFormula()
	}
	cat.buildNotes()
	for _, n := range cat.notes {
		h.Write([]byte(n.ID + "\x00" + n.Text + "\x00"))
	}
	cat.version = hex.EncodeToString(h.Sum(nil))[:16]
	return cat, nil
}

func yamlFiles(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if ext := path.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func parseFile(name string, body []byte, errs *errorList) *rawFile {
	var doc yaml.Node
	if err := yaml.Unmarshal(body, &doc); err != nil {
		errs.add(syntaxPos(name, err), "fix the YAML syntax", "%s", yamlMessage(err))
		return nil
	}
	at := Pos{File: name, Line: 1, Column: 1}
	if len(doc.Content) == 0 {
		errs.add(at, "start the file with version: 1", "the file is empty")
		return nil
	}
	d := &decoder{file: name, errs: errs}
	f := &rawFile{}
	d.decode(doc.Content[0], reflect.ValueOf(f), at, "")
	if f.Version != nil && *f.Version != 1 {
		errs.add(at, "this plumbline reads version: 1", "unknown catalogue version %d", *f.Version)
	}
	return f
}

// merge joins the files into one, reporting ids and settings defined twice.
func merge(files []*rawFile, errs *errorList) *rawFile {
	out := &rawFile{}
	if len(files) > 0 {
		out.At = files[0].At
	}
	for _, f := range files {
		setOnce(&out.TimeZone, f.TimeZone, "time_zone", errs)
		setOnce(&out.WeekStarts, f.WeekStarts, "week_starts", errs)
		setOnce(&out.Limits, f.Limits, "limits", errs)
		setOnce(&out.Roster, f.Roster, "roster", errs)
		setOnce(&out.Loads, f.Loads, "loads", errs)
		setOnce(&out.Targets, f.Targets, "targets", errs)
		setOnce(&out.Activity, f.Activity, "activity", errs)
		mergeMap(&out.Sources, f.Sources, "source", errs)
		mergeMap(&out.Bases, f.Bases, "basis", errs)
		mergeMap(&out.Concepts, f.Concepts, "concept", errs)
		mergeMap(&out.Metrics, f.Metrics, "metric", errs)
		mergeMap(&out.Reports, f.Reports, "report", errs)
		mergeMap(&out.Periods, f.Periods, "period", errs)
	}
	return out
}

type positioned interface{ pos() Pos }

func (r *ref) pos() Pos        { return r.At }
func (l *rawLimits) pos() Pos  { return l.At }
func (r *rawRoster) pos() Pos  { return r.At }
func (l *rawLoads) pos() Pos   { return l.At }
func (t *rawTargets) pos() Pos { return t.At }
func (s *rawSource) pos() Pos  { return s.At }
func (b *rawBasis) pos() Pos   { return b.At }
func (c *rawConcept) pos() Pos { return c.At }
func (m *rawMetric) pos() Pos  { return m.At }
func (p *rawPeriod) pos() Pos  { return p.At }
func (r *rawReport) pos() Pos  { return r.At }

func setOnce[T positioned](dst *T, v T, key string, errs *errorList) {
	if isNilPtr(v) {
		return
	}
	if !isNilPtr(*dst) {
		errs.add(v.pos(), "set it in one file only; it was first set at "+(*dst).pos().String(), "%s is set twice", key)
		return
	}
	*dst = v
}

func mergeMap[T positioned](dst *map[string]T, src map[string]T, kind string, errs *errorList) {
	if *dst == nil {
		*dst = map[string]T{}
	}
	for _, id := range sortedKeys(src) {
		if first, dup := (*dst)[id]; dup {
			errs.add(src[id].pos(), "ids must be unique across files; it was first defined at "+first.pos().String(), "%s %q is defined twice", kind, id)
			continue
		}
		(*dst)[id] = src[id]
	}
}

func isNilPtr(v any) bool {
	r := reflect.ValueOf(v)
	return !r.IsValid() || r.Kind() == reflect.Pointer && r.IsNil()
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// syntaxPos finds the line yaml.v3 blames; it reports no column.
func syntaxPos(file string, err error) Pos {
	at := Pos{File: file, Line: 1, Column: 1}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		at.Line, _ = strconv.Atoi(m[1])
	}
	return at
}

func yamlMessage(err error) string {
	msg := yamlLine.ReplaceAllString(err.Error(), "")
	return "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")
}
