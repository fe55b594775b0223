package main

import (
	"context"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// plumbline prune-log deletes the spent sign-in state with the old calls,
// and says how much of each.
func TestPruneLogPrunesSignInState(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	if _, err := db.Conn(t).Exec(ctx, `INSERT INTO plumbline.oauth_sessions (session_hash, person_id, csrf, expires_at)
		VALUES ('old', 'p', 'c', now() - interval '1 minute'), ('live', 'p', 'c', now() + interval '1 hour')`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "prune-log", "--db", db.DSN)
	if code != 0 || !strings.Contains(out, "Deleted 0 spent authorization codes, 1 expired sign-in sessions, 0 access tokens past their audit grace and 0 failed client authentications") {
		t.Errorf("prune-log: exit %d\n%s%s", code, out, errOut)
	}
	var left int
	db.Conn(t).QueryRow(ctx, "SELECT count(*) FROM plumbline.oauth_sessions").Scan(&left)
	if left != 1 {
		t.Errorf("%d sessions left, want the live one", left)
	}
}
