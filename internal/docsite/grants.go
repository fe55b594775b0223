package docsite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// This file reads the review headers of grant files: one file per relation
// granted to the reader role, sql/grants/<schema>.<relation>.sql, opening
// with comment lines such as
//
//	-- relation: metrics.agent_sales_daily
//	-- grain: agent (one row per agent per day)
//	-- reviewed-by: Dana Whitfield
//	-- reviewed-on: 2026-10-30
//	-- why: sales reports sum submitted, lost and approved; no member data.
//
// A single "review:" line may stand for the last three. Keys are matched
// without regard to case, '-' or '_'; an indented comment line continues
// the previous value.

// Grant is a grant file's review header.
type Grant struct {
	Dir        string // the directory it was read from
	File       string // the file's name
	Relation   string
	Grain      string
	ReviewedBy string
	ReviewedOn string
	Why        string
	Review     string // a one-line review, when the file gives one
}

// Reviewed reports whether the header names a review.
func (g *Grant) Reviewed() bool {
	return g.Review != "" || g.ReviewedBy != "" && g.Why != ""
}

// header keys, by their normalised spelling.
var grantKeys = map[string]func(g *Grant) *string{
	"relation":   func(g *Grant) *string { return &g.Relation },
	"grain":      func(g *Grant) *string { return &g.Grain },
	"reviewedby": func(g *Grant) *string { return &g.ReviewedBy },
	"reviewer":   func(g *Grant) *string { return &g.ReviewedBy },
	"reviewedon": func(g *Grant) *string { return &g.ReviewedOn },
	"why":        func(g *Grant) *string { return &g.Why },
	"reason":     func(g *Grant) *string { return &g.Why },
	"review":     func(g *Grant) *string { return &g.Review },
}

// ParseGrant reads the header of one grant file: the comment lines before
// the first statement. The relation defaults to the file's name.
func ParseGrant(name, text string) *Grant {
	g := &Grant{File: name}
	var last *string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		body, ok := strings.CutPrefix(strings.TrimLeft(line, " \t"), "--")
		if !ok {
			break
		}
		key, value, isField := strings.Cut(body, ":")
		field, known := grantKeys[normalKey(key)]
		switch {
		case isField && known:
			last = field(g)
			*last = strings.TrimSpace(value)
		case last != nil && strings.HasPrefix(body, "  ") && strings.TrimSpace(body) != "":
			*last += " " + strings.TrimSpace(body)
		default:
			last = nil
		}
	}
	if g.Relation == "" {
		g.Relation = strings.TrimSuffix(filepath.Base(name), ".sql")
	}
	return g
}

func normalKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	return strings.NewReplacer("-", "", "_", "", " ", "").Replace(k)
}

// ReadGrants reads every *.sql file in dir, by relation. A missing
// directory holds no grants.
func ReadGrants(dir string) (map[string]*Grant, error) {
	grants, err := ReadGrantsFS(os.DirFS(dir), dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]*Grant{}, nil
	}
	return grants, err
}

// ReadGrantsFS reads every *.sql file at the top of fsys, by relation;
// dir names fsys on the pages.
func ReadGrantsFS(fsys fs.FS, dir string) (map[string]*Grant, error) {
	out := map[string]*Grant{}
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".sql" {
			continue
		}
		body, err := fs.ReadFile(fsys, e.Name())
		if err != nil {
			return nil, err
		}
		g := ParseGrant(e.Name(), string(body))
		g.Dir = dir
		out[g.Relation] = g
	}
	return out, nil
}
