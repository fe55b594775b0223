package docsite

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"plumbline/catalog"
	"plumbline/internal/contract"
)

//go:embed templates/*.html assets/*
var files embed.FS

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"join": strings.Join,
}).ParseFS(files, "templates/*.html"))

// Site is what a site is rendered from.
type Site struct {
	Catalog *catalog.Catalog
	// Tools are the tools a server of this catalogue offers: the source of
	// truth for tool names, and for which plumbline tools (canned reports)
	// take a metric.
	Tools []contract.Tool
	// Grants are the grant files' review headers, by relation.
	Grants map[string]*Grant
	// Analyst are the analyst grant files' review headers, by relation:
	// the analyst's allow-list. If empty, the site has no page for it.
	Analyst map[string]*Grant
}

// Build writes the site into dir, creating it if needed. It returns the
// files written, relative to dir.
func Build(s *Site, dir string) ([]string, error) {
	out := map[string][]byte{}
	idx := s.index()
	render := func(name, tmpl string, data any) error {
		var b bytes.Buffer
		if err := pages.ExecuteTemplate(&b, tmpl, data); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
		out[name] = b.Bytes()
		return nil
	}
	if err := render("index.html", "index.html", s.page("", "Metrics by report", idx)); err != nil {
		return nil, err
	}
	for _, m := range idx.Metrics {
		if err := render("metrics/"+m.ID+".html", "metric.html", s.page("../", m.Label, m)); err != nil {
			return nil, err
		}
	}
	if err := render("concepts.html", "concepts.html", s.page("", "Concepts", idx)); err != nil {
		return nil, err
	}
	if err := render("sources.html", "sources.html", s.page("", "Sources", idx)); err != nil {
		return nil, err
	}
	if len(s.Analyst) > 0 {
		if err := render("analyst.html", "analyst.html", s.page("", "The analyst's allow-list", s.allowList())); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"style.css", "search.js"} {
		b, err := files.ReadFile("assets/" + name)
		if err != nil {
			return nil, err
		}
		out[name] = b
	}
	search, err := json.Marshal(idx.search())
	if err != nil {
		return nil, err
	}
	// A script, not a JSON file: pages opened from disk may load scripts
	// but not fetch files.
	out["search-index.js"] = []byte("window.plumblineSearch = " + string(search) + ";\n")

	var names []string
	for name, body := range out {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// page is one page's data: the path back to the site's root, its title and
// its content.
type page struct {
	Root    string
	Title   string
	Catalog catalogInfo
	Analyst bool // the site has the analyst's allow-list
	Data    any
}

type catalogInfo struct {
	Version, Zone, WeekStart string
	MaxDays, MaxRows         int
}

func (s *Site) page(root, title string, data any) page {
	c := s.Catalog
	return page{Root: root, Title: title, Data: data, Analyst: len(s.Analyst) > 0, Catalog: catalogInfo{
		Version: c.Version(), Zone: c.Zone().String(), WeekStart: c.WeekStart().String(),
		MaxDays: c.Limits().MaxDays, MaxRows: c.Limits().MaxRows,
	}}
}

// allowList is the analyst's allow-list, by relation.
func (s *Site) allowList() []*Grant {
	out := make([]*Grant, 0, len(s.Analyst))
	for _, g := range s.Analyst {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b *Grant) int { return strings.Compare(a.Relation, b.Relation) })
	return out
}
