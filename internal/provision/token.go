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

// demoTokenFile keeps the demo's ready token beside its cluster, so that
// a configuration pasted once keeps working on every later run, until the
// cluster is deleted, rather than each run spending one of the manager's
// live tokens.
const demoTokenFile = "demo-token"

// DemoToken returns the demo's ready token for the manager: the one kept
// in dir while it still holds (it may have expired, or been issued for
// another --addr), else a new one from store, kept there for the next run.
func DemoToken(ctx context.Context, store *oauth.Store, cfg *oauth.Config, manager oauth.Member, dir string) (string, error) {
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
