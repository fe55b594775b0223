package main

import (
	"context"
	"fmt"
	"path/filepath"

	"plumbline/internal/docsite"
	"plumbline/reports"
)

func docs(_ context.Context, args []string, s *streams) error {
	f := newFlags("docs", helpText("docs"), s)
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
