package main

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"plumbline/internal/contract"
	"plumbline/internal/docsite"
	"plumbline/reports"
	sqlfiles "plumbline/sql"
)

func docs(_ context.Context, args []string, s *streams) error {
	f := newFlags("docs", helpText("docs"), s)
	out := f.string("o", "", "`directory` to write the site into (required)")
	grants := f.string("grants", "", "`directory` of grant files whose review headers the pages show (default: the sql/grants beside the catalogue, "+
		"in its directory or one above it; for the embedded catalogue, the demo floor's, embedded)")
	analystGrants := f.string("analyst-grants", "", "`directory` of analyst grant files: the analyst's allow-list page (default: the sql/analyst beside the catalogue, as for --grants)")
	rest, err := f.parseInterspersed(args)
	if err != nil {
		return err
	}
	if *out == "" {
		return fmt.Errorf("%w: -o is required: the directory to write the site into", errUsage)
	}
	cat, dir, err := catalogArg(rest)
	if err != nil {
		return err
	}
	reviews, err := docsGrants("grants", *grants, dir, "sql/grants", sqlfiles.Grants())
	if err != nil {
		return fmt.Errorf("read grant files: %w", err)
	}
	allowList, err := docsGrants("analyst-grants", *analystGrants, dir, "sql/analyst", sqlfiles.AnalystGrants())
	if err != nil {
		return fmt.Errorf("read analyst grant files: %w", err)
	}
	written, err := docsite.Build(&docsite.Site{Catalog: cat, Tools: contract.Tools(reports.New(cat, nil, nil)), Grants: reviews, Analyst: allowList}, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Wrote %d files; open %s\n", len(written), filepath.Join(*out, "index.html"))
	return nil
}

// docsGrants reads the grant files in flagDir, the value of the flag
// named flag, which must be a directory; or
// without it, those beside the catalogue in catDir: the nearest sub (such
// as sql/grants) in catDir or a directory above it, or for the embedded
// catalogue (no catDir) the embedded ones. The working directory plays no
// part, so the site is the same from wherever it is built.
func docsGrants(flag, flagDir, catDir, sub string, embedded fs.FS) (map[string]*docsite.Grant, error) {
	switch {
	case flagDir != "":
		if info, err := os.Stat(flagDir); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("%w: --%s %s is not a directory of grant files", errUsage, flag, flagDir)
		}
		return docsite.ReadGrantsFS(os.DirFS(flagDir), flagDir)
	case catDir == "":
		return docsite.ReadGrantsFS(embedded, sub+" (embedded)")
	}
	abs, err := filepath.Abs(catDir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; d = filepath.Dir(d) {
		candidate := filepath.Join(d, sub)
		if info, err := os.Stat(candidate); err == nil && info.IsDir() {
			rel, err := filepath.Rel(".", candidate)
			if err != nil {
				rel = candidate
			}
			return docsite.ReadGrantsFS(os.DirFS(candidate), rel)
		}
		if d == filepath.Dir(d) {
			return map[string]*docsite.Grant{}, nil // none beside it: every relation shows "no grant file yet"
		}
	}
}
