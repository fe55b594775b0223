package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/jackc/pgx/v5"

	"plumbline/catalog"
	"plumbline/internal/dbcheck"
	"plumbline/internal/grants"
	"plumbline/internal/terminal"
)

func check(ctx context.Context, args []string, s *streams) error {
	f := newFlags("check", helpText("check"), s)
	format := f.string("format", "text", "output `format`: text or github")
	contractFile := f.string("contract", "", "compare the tools' contract with this snapshot `file` (see plumbline contract)")
	oldDir := f.string("diff", "", "preview the change from the catalogue in this `directory`")
	db := f.string("db", "", "PostgreSQL connection `string` (plumbline's login): check the catalogue against this database, and preview values with --diff")
	var dirs grants.Dirs
	var reader string
	f.register(func(fs *flag.FlagSet) { dirs.RegisterFlags(fs); grants.RegisterReaderFlag(fs, &reader) })
	analystRole := f.string("analyst-role", grants.DefaultRoles().Analyst, "`role` the analyst's door runs statements as")
	rest, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: give exactly one catalogue directory", errUsage)
	}
	if *format != "text" && *format != "github" {
		return fmt.Errorf("%w: --format must be text or github", errUsage)
	}
	cat, err := catalog.LoadDir(rest[0])
	var errs catalog.Errors
	switch {
	case errors.As(err, &errs):
		for _, e := range errs {
			terminal.Check{W: s.out, GitHub: *format == "github"}.CatalogError(e)
		}
		fmt.Fprintf(s.err, "%d problem(s) in %s\n", len(errs), rest[0])
		return exitError{1}
	case err != nil:
		return err
	}
	fmt.Fprintf(s.out, "%s: ok (%d reports, %d metrics, %d sources; catalog_version %s)\n",
		rest[0], len(cat.Reports()), len(cat.Metrics()), len(cat.Sources()), cat.Version())
	dbProblems := false
	if *db != "" {
		ok, err := checkDatabase(ctx, s, cat, *db, dirs, reader, *format)
		if err != nil {
			return err
		}
		aok, err := checkAnalyst(ctx, s, *db, dirs, *analystRole, *format)
		if err != nil {
			return err
		}
		dbProblems = !ok || !aok
	}
	if *oldDir != "" {
		if err := previewChanges(ctx, *oldDir, cat, *db, s.out); err != nil {
			return err
		}
	}
	if *contractFile != "" {
		if err := checkContract(cat, *contractFile, *format, s.out); err != nil {
			return err
		}
	}
	if dbProblems {
		return exitError{1}
	}
	return nil
}

// checkDatabase checks the catalogue against a database, prints each
// problem, and reports whether there were none.
func checkDatabase(ctx context.Context, s *streams, cat *catalog.Catalog, dsn string, dirs grants.Dirs, reader, format string) (bool, error) {
	gs, err := dirs.Load()
	if err != nil {
		return false, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return false, fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	problems, err := dbcheck.CheckCatalog(ctx, conn, cat, gs, reader)
	if err != nil {
		return false, err
	}
	mapping, err := dbcheck.CheckMapping(ctx, conn, cat)
	if err != nil {
		return false, err
	}
	// A mapping problem is the catalogue's place that names the relation.
	out := terminal.Check{W: s.out, GitHub: format == "github"}
	for _, e := range mapping {
		out.CatalogError(e)
	}
	out.Problems(problems)
	if n := len(mapping) + len(problems); n > 0 {
		fmt.Fprintf(s.err, "%d problem(s) in the database\n", n)
		return false, nil
	}
	fmt.Fprintf(s.out, "database: ok (%d relations exist, are granted with a review and readable by %s, and their rows follow the catalogue's rules)\n",
		len(cat.Relations()), reader)
	return true, nil
}

// problemsOf prints the database's problems as text or annotations, and
// reports whether there were any.
func problemsOf(s *streams, problems []string, format string) bool {
	if !(terminal.Check{W: s.out, GitHub: format == "github"}).Problems(problems) {
		return false
	}
	fmt.Fprintf(s.err, "%d problem(s) in the database\n", len(problems))
	return true
}

// checkAnalyst lists the analyst's allow-list with each relation's grain
// and review, checks the analyst role against it, prints each problem, and
// reports whether there were none.
func checkAnalyst(ctx context.Context, s *streams, dsn string, dirs grants.Dirs, role, format string) (bool, error) {
	gs, err := dirs.LoadAnalyst()
	if err != nil {
		return false, err
	}
	terminal.Check{W: s.out, GitHub: format == "github"}.AllowList(gs, role)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return false, fmt.Errorf("cannot reach the database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	problems, err := dbcheck.CheckAnalyst(ctx, conn, gs, role)
	if err != nil {
		return false, err
	}
	if problemsOf(s, problems, format) {
		return false, nil
	}
	fmt.Fprintf(s.out, "database: analyst ok (%s reads exactly its %d reviewed relations, no member data)\n", role, len(gs))
	return true, nil
}
