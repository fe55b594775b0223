package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"plumbline/internal/grants"
	"plumbline/internal/oauth"
	"plumbline/internal/server"
	"plumbline/internal/terminal"
)

func tokenCmd(ctx context.Context, args []string, s *streams) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		return fmt.Errorf("%w: name an action: create, list or revoke", errUsage)
	}
	action, rest := args[0], args[1:]
	if action == "-h" || action == "--help" {
		action, rest = "list", []string{"-h"}
	}
	f := newFlags("token "+action, helpText("token"), s)
	db := f.string("db", "", "PostgreSQL connection `string` (required)")
	role := f.string("auth-role", grants.DefaultRoles().Auth, "`role` that keeps the token store")
	auth := &server.Auth{}
	f.register(auth.RegisterFlags)
	addr := f.string("addr", "127.0.0.1:8080", "`host:port` the server listens on; names the default --public-url")
	var service, scope, person *string
	var ttl *time.Duration
	var all *bool
	switch action {
	case "create":
		service = f.string("service", "", "the service's `name`: lower-case letters, digits, . _ - (required)")
		scope = f.string("scope", strings.Join(oauth.ServiceScopes, " "), "space- or comma-separated `scopes`: "+strings.Join(oauth.ServiceScopeChoices, ", "))
		ttl = f.duration("ttl", 365*24*time.Hour, "how long the token lives")
	case "list":
		all = f.boolean("all", false, "list revoked and expired tokens too")
	case "revoke":
		service = f.string("service", "", "revoke every live token of this service `name`")
		person = f.string("person", "", "revoke every live token of this `person` id")
	default:
		return fmt.Errorf("%w: unknown action %q: use create, list or revoke", errUsage, action)
	}
	pos, err := f.parse(rest)
	if err != nil {
		return err
	}
	if *db == "" {
		return fmt.Errorf("%w: --db is required", errUsage)
	}
	auth.Role = *role
	store, closeStore, err := auth.Store(ctx, *db, nil)
	if err != nil {
		return err
	}
	defer closeStore()
	switch action {
	case "create":
		return createToken(ctx, s, store, auth, *addr, *service, *scope, *ttl)
	case "list":
		return listTokens(ctx, s, store, *all)
	default:
		return revokeTokens(ctx, s, store, pos, *service, *person)
	}
}

func createToken(ctx context.Context, s *streams, store *oauth.Store, auth *server.Auth, addr, service, scopeList string, ttl time.Duration) error {
	if !oauth.ValidServiceName(service) {
		return fmt.Errorf("%w: --service must be a name of lower-case letters, digits, '.', '_' and '-' (at most 63)", errUsage)
	}
	scope := strings.FieldsFunc(scopeList, func(r rune) bool { return r == ' ' || r == ',' })
	for _, sc := range scope {
		if !slices.Contains(oauth.ServiceScopeChoices, sc) {
			return fmt.Errorf("%w: --scope: each scope must be one of %s", errUsage, strings.Join(oauth.ServiceScopeChoices, ", "))
		}
	}
	if !slices.Contains(scope, oauth.ScopeReports) {
		return fmt.Errorf("%w: --scope must include %s, which every call needs", errUsage, oauth.ScopeReports)
	}
	if ttl <= 0 {
		return fmt.Errorf("%w: --ttl must be positive", errUsage)
	}
	cfg, err := auth.Config(addr, nil, nil)
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: --public-url: %v", errUsage, err)
	}
	token, info, err := store.CreateServiceToken(ctx, &cfg, service, scope, ttl)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.err, "Token %d for service:%s, scope %s, for %s, expires %s.\nIt is shown only now; plumbline keeps only its hash.\n",
		info.ID, service, strings.Join(info.Scope, " "), cfg.Resource(), info.Expires.Format(time.DateOnly))
	fmt.Fprintln(s.out, token)
	return nil
}

func listTokens(ctx context.Context, s *streams, store *oauth.Store, all bool) error {
	tokens, err := store.ListTokens(ctx, all)
	if err != nil {
		return err
	}
	return terminal.Tokens(s.out, tokens)
}

func revokeTokens(ctx context.Context, s *streams, store *oauth.Store, pos []string, service, person string) error {
	var ids []int64
	for _, p := range pos {
		id, err := strconv.ParseInt(p, 10, 64)
		if err != nil || id <= 0 {
			return fmt.Errorf("%w: token ids are the numbers plumbline token list shows", errUsage)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 && service == "" && person == "" {
		return fmt.Errorf("%w: name token ids, --service or --person", errUsage)
	}
	n, err := store.RevokeTokens(ctx, ids, service, person)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.out, "Revoked %d token(s).\n", n)
	return nil
}
