package oauth

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// How long sign-in state stays after it stops working, before Prune
// deletes it.
const (
	// CodeGrace keeps a code a day past its expiry, so that a replay in
	// that day is still recognised and revokes what the code bought.
	CodeGrace = 24 * time.Hour
	// TokenGrace keeps a token 30 days past its expiry or revocation, so
	// that plumbline token list --all and an audit can still name it.
	TokenGrace = 30 * 24 * time.Hour
)

// Pruned counts what Prune deleted.
type Pruned struct{ Codes, Sessions, Tokens int64 }

// Prune deletes the sign-in state that can no longer be used: codes
// CodeGrace past their expiry, expired sign-in sessions, and tokens
// TokenGrace past their expiry or revocation. Nothing live is touched. It
// needs a role that may delete from the token store: an administrator's,
// never plumbline's own login, which can delete nothing.
func Prune(ctx context.Context, conn *pgx.Conn) (Pruned, error) {
	var p Pruned
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		for _, d := range []struct {
			n    *int64
			stmt string
			arg  time.Duration
		}{
			{&p.Codes, "DELETE FROM plumbline.oauth_codes WHERE expires_at < now() - make_interval(secs => $1)", CodeGrace},
			{&p.Sessions, "DELETE FROM plumbline.oauth_sessions WHERE expires_at < now() - make_interval(secs => $1)", 0},
			{&p.Tokens, `DELETE FROM plumbline.oauth_tokens
				WHERE least(expires_at, coalesce(revoked_at, 'infinity')) < now() - make_interval(secs => $1)`, TokenGrace},
		} {
			tag, err := tx.Exec(ctx, d.stmt, d.arg.Seconds())
			if err != nil {
				return err
			}
			*d.n = tag.RowsAffected()
		}
		return nil
	})
	return p, err
}
