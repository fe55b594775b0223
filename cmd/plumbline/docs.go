package main

import (
	"context"
	"fmt"
	"path/filepath"

	"plumbline/internal/docsite"
	"plumbline/reports"
)

const docsHelp = `
Usage: plumbline docs [flags] [DIR] -o SITE

Render the catalogue in DIR (default: the embedded demo catalogue) as a
static HTML site in SITE: an index of the metrics by report, one page per
metric (label, unit, definition, formula written out as sums, source
relation and grain, counting basis, when a day's figures settle, the
reports and canned reports that offer it, the grant's review), the
concepts, the sources with their freshness rules, and a search box.

The site has no external assets: open SITE/index.html from disk, or serve
the directory. Reviews come from the headers of the grant files in
--grants (one file per granted relation, sql/grants/<schema>.<relation>.sql);
a relation without one is shown as "no grant file yet". The analyst's
allow-list page lists the relations of the analyst grant files in
--analyst-grants, each with its grain and review.

Examples:
  plumbline docs catalog/demo -o site
  plumbline docs ./catalog -o site --grants ./sql/grants
`

func docs(_ context.Context, args []string, s *streams) error {
	f := newFlags("docs", docsHelp, s)
	out := f.string("o", "", "`directory` to write the site into (required)")
	grants := f.string("grants", "sql/grants", "`directory` of grant files whose review headers the pages show")
	analystGrants := f.string("analyst-grants", "sql/analyst", "`directory` of analyst grant files: the analyst's allow-list page")
	rest, err := f.parseInterspersed(args)
	if err != nil {
		return err
	}
	switch {
	case len(rest) > 1:
		return fmt.Errorf("%w: give at most one catalogue directory", errUsage)
	case *out == "":
		return fmt.Errorf("%w: -o is required: the directory to write the site into", errUsage)
	}
	dir := ""
	if len(rest) == 1 {
		dir = rest[0]
	}
	cat, err := loadCatalog(dir)
	if err != nil {
		return fmt.Errorf("load catalogue:\n%w", err)
	}
	reviews, err := docsite.ReadGrants(*grants)
	if err != nil {
		return fmt.Errorf("read grant files: %w", err)
	}
	allowList, err := docsite.ReadGrants(*analystGrants)
	if err != nil {
		return fmt.Errorf("read analyst grant files: %w", err)
	}
	written, err := docsite.Build(&docsite.Site{Catalog: cat, Tools: reports.New(cat, nil, nil).Tools(), Grants: reviews, Analyst: allowList}, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Wrote %d files; open %s\n", len(written), filepath.Join(*out, "index.html"))
	return nil
}
