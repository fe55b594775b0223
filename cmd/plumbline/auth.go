package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"plumbline/internal/oauth"
	"plumbline/internal/server"
)

// tokenEnv is where the stdio transport reads its token from. A token is
// never a flag: flags show in process listings.
const tokenEnv = "PLUMBLINE_TOKEN"

// demoTokenFile keeps the demo's ready token beside its cluster, so that
// a configuration pasted once keeps working on every later run, until the
// cluster is deleted, rather than each run spending one of the manager's
// live tokens.
const demoTokenFile = "demo-token"

// demoToken returns the demo's ready token for the manager: the one kept
// in dir while it still holds (it may have expired, or been issued for
// another --addr), else a new one, kept there for the next run.
func demoToken(ctx context.Context, dsn string, auth *server.Auth, cfg *oauth.Config, manager oauth.Member, dir string) (string, error) {
	store, closeStore, err := auth.Store(ctx, dsn, nil)
	if err != nil {
		return "", err
	}
	defer closeStore()
	path := filepath.Join(dir, demoTokenFile)
	if kept, err := os.ReadFile(path); err == nil {
		as, err := oauth.New(*cfg, store, nil)
		if err != nil {
			return "", err
		}
		token := strings.TrimSpace(string(kept))
		id, err := as.Verify(ctx, token)
		switch {
		case err == nil && id.Kind == oauth.KindPerson && id.Subject == manager.PersonID:
			return token, nil
		case err != nil && !errors.Is(err, oauth.ErrInvalidToken):
			return "", err
		}
	}
	token, _, err := store.CreatePersonToken(ctx, cfg, manager.PersonID, cfg.TokenTTL)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep the demo's token: %w", err)
	}
	return token, nil
}
