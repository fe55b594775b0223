package provision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"plumbline/internal/oauth"
)

// The demo's ready tokens are kept beside its cluster, one file for each
// person, so that a configuration pasted once keeps working on every later
// run, until the cluster is deleted, rather than each run spending one of
// the person's live tokens: DemoTokenFile holds the team lead's (the one
// the demo prints unless asked for the other) and FloorManagerTokenFile
// the floor manager's.
const (
	DemoTokenFile         = "demo-token"
	FloorManagerTokenFile = "floor-manager-token"
)

// DemoToken returns the demo's ready token for member: the one kept in
// file in dir while it still holds (it may have expired, or been issued
// for another --addr or another person), else a new one from store, kept
// there for the next run.
func DemoToken(ctx context.Context, store *oauth.Store, cfg *oauth.Config, member oauth.Member, dir, file string) (string, error) {
	path := filepath.Join(dir, file)
	if kept, err := os.ReadFile(path); err == nil {
		as, err := oauth.New(*cfg, store, nil)
		if err != nil {
			return "", err
		}
		token := strings.TrimSpace(string(kept))
		id, err := as.Verify(ctx, token)
		switch {
		case err == nil && id.Kind == oauth.KindPerson && id.Subject == member.PersonID:
			return token, nil
		case err != nil && !errors.Is(err, oauth.ErrInvalidToken):
			return "", err
		}
	}
	token, _, err := store.CreatePersonToken(ctx, cfg, member.PersonID, cfg.TokenTTL)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("keep the demo's token: %w", err)
	}
	return token, nil
}
