package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"plumbline/internal/grants"
	"plumbline/internal/members"
	"plumbline/internal/server"
)

// directoryFlags adds the flags that name the directory (--db and
// --auth-role) and returns what opens it, its statements run as the role.
func directoryFlags(f *flags) func(context.Context) (*members.Store, func(), error) {
	db := f.string("db", "", "PostgreSQL connection `string` (required)")
	role := f.string("auth-role", grants.DefaultRoles().Auth, "`role` that keeps the token store and the directory")
	return func(ctx context.Context) (*members.Store, func(), error) {
		if *db == "" {
			return nil, nil, fmt.Errorf("%w: --db is required", errUsage)
		}
		a := server.Auth{Role: *role}
		return a.Directory(ctx, *db)
	}
}

func membersCmd(ctx context.Context, args []string, s *streams) error {
	if len(args) == 0 || args[0] != "import" && args[0] != "-h" && args[0] != "--help" {
		return fmt.Errorf("%w: name an action: import", errUsage)
	}
	if args[0] == "import" {
		args = args[1:]
	}
	f := newFlags("members import", helpText("members"), s)
	open := directoryFlags(f)
	dry := f.boolean("dry-run", false, "say what the import would change, and change nothing")
	pos, err := f.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: name one export file, .csv or .json", errUsage)
	}
	rows, err := members.ReadFile(pos[0])
	if err != nil {
		return err
	}
	store, closeStore, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	name := filepath.Base(pos[0])
	rep, err := store.Import(ctx, name, rows, *dry)
	if err != nil {
		return err
	}
	verb := ""
	if *dry {
		verb = "would be "
	}
	if len(rep.Added)+len(rep.Changed)+len(rep.Deactivated) == 0 {
		fmt.Fprintf(s.out, "%s: nothing to change; %d members are as the file says.\n", name, rep.Unchanged)
	} else {
		fmt.Fprintf(s.out, "%s: %d %sadded, %d %schanged, %d %sdeactivated, %d unchanged.\n", name,
			len(rep.Added), verb, len(rep.Changed), verb, len(rep.Deactivated), verb, rep.Unchanged)
		for _, l := range []struct {
			what string
			ids  []string
		}{{"added", rep.Added}, {"changed", rep.Changed}, {"deactivated", rep.Deactivated}} {
			if len(l.ids) > 0 {
				fmt.Fprintf(s.out, "  %s%s: %s\n", verb, l.what, strings.Join(l.ids, ", "))
			}
		}
	}
	if rep.KeptBySCIM > 0 {
		fmt.Fprintf(s.out, "%d active members the file does not list are kept by SCIM, and were left as they are.\n", rep.KeptBySCIM)
	}
	if *dry {
		fmt.Fprintln(s.out, "Dry run: nothing was changed.")
	}
	return nil
}

func scimCmd(ctx context.Context, args []string, s *streams) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		args = []string{"token", "list", "-h"}
	}
	if args[0] != "token" || len(args) < 2 {
		return fmt.Errorf("%w: name an action: token create, token list or token revoke", errUsage)
	}
	action, rest := args[1], args[2:]
	f := newFlags("scim token "+action, helpText("scim"), s)
	open := directoryFlags(f)
	var name *string
	var ttl *time.Duration
	var all *bool
	switch action {
	case "create":
		name = f.string("name", "", "the provisioning client's `name`, such as okta or entra (required)")
		ttl = f.duration("ttl", 365*24*time.Hour, "how long the token lives")
	case "list":
		all = f.boolean("all", false, "list revoked and expired tokens too")
	case "revoke":
		name = f.string("name", "", "revoke every live token of this `name`")
	default:
		return fmt.Errorf("%w: unknown action %q: use token create, token list or token revoke", errUsage, action)
	}
	pos, err := f.parse(rest)
	if err != nil {
		return err
	}
	store, closeStore, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	switch action {
	case "create":
		if *name == "" || strings.ContainsAny(*name, " \t\n") {
			return fmt.Errorf("%w: --name must name the provisioning client in one word, such as okta", errUsage)
		}
		if *ttl <= 0 {
			return fmt.Errorf("%w: --ttl must be positive", errUsage)
		}
		token, t, err := store.CreateToken(ctx, *name, *ttl)
		if err != nil {
			return err
		}
		fmt.Fprintf(s.err, "SCIM token %d for %s, expires %s. It opens /scim/v2 under plumbline's public URL.\n"+
			"It is shown only now; plumbline keeps only its hash.\n", t.ID, t.Name, t.Expires.Format(time.DateOnly))
		fmt.Fprintln(s.out, token)
		return nil
	case "list":
		tokens, err := store.Tokens(ctx, *all)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(s.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tCREATED\tEXPIRES\tLAST USED\tREVOKED")
		day := func(t *time.Time) string {
			if t == nil {
				return "-"
			}
			return t.Format(time.DateOnly)
		}
		for _, t := range tokens {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, day(&t.Created), day(&t.Expires), day(t.LastUsed), day(t.Revoked))
		}
		return tw.Flush()
	}
	var ids []int64
	for _, p := range pos {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("%w: token ids are the numbers plumbline scim token list shows", errUsage)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 && *name == "" {
		return fmt.Errorf("%w: name token ids or --name", errUsage)
	}
	n, err := store.RevokeTokens(ctx, ids, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Revoked %d SCIM token(s).\n", n)
	return nil
}
