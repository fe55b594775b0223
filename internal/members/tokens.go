package members

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
)

// TokenPrefix starts every SCIM token, so that one is never mistaken for
// an OAuth access token (plb_).
const TokenPrefix = "plbscim_"

// Token is a SCIM token as `plumbline scim token list` shows it.
type Token struct {
	ID       int64
	Name     string
	Created  time.Time
	Expires  time.Time
	LastUsed *time.Time
	Revoked  *time.Time
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// CreateToken makes a SCIM token for a provisioning client called name,
// living ttl, and returns it: it is shown only now, as only its hash is
// kept.
func (s *Store) CreateToken(ctx context.Context, name string, ttl time.Duration) (string, Token, error) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	token := TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	var t Token
	err := s.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO plumbline.scim_tokens (token_hash, name, expires_at)
			VALUES ($1, $2, now() + make_interval(secs => $3))`, hashToken(token), name, ttl.Seconds()); err != nil {
			return err
		}
		return tx.QueryRow(ctx, tokenColumns+" WHERE token_hash = $1", hashToken(token)).
			Scan(&t.ID, &t.Name, &t.Created, &t.Expires, &t.LastUsed, &t.Revoked)
	})
	return token, t, err
}

const tokenColumns = "SELECT token_id, name, created_at, expires_at, last_used_at, revoked_at FROM plumbline.scim_tokens"

// Tokens lists SCIM tokens, newest first: live ones only, unless all.
func (s *Store) Tokens(ctx context.Context, all bool) ([]Token, error) {
	q := tokenColumns + " WHERE revoked_at IS NULL AND expires_at > now() ORDER BY token_id DESC"
	if all {
		q = tokenColumns + " ORDER BY token_id DESC"
	}
	return list(ctx, s, q, func(r pgx.Row) (Token, error) {
		var t Token
		return t, r.Scan(&t.ID, &t.Name, &t.Created, &t.Expires, &t.LastUsed, &t.Revoked)
	})
}

// RevokeTokens revokes live SCIM tokens chosen by id or by name, and
// returns how many it revoked.
func (s *Store) RevokeTokens(ctx context.Context, ids []int64, name string) (int64, error) {
	var n int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE plumbline.scim_tokens SET revoked_at = now()
			WHERE revoked_at IS NULL AND (token_id = ANY($1) OR name = $2)`, ids, name)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// VerifyToken returns the name of the live SCIM token given, and notes
// that it was used; ok is false for any other.
func (s *Store) VerifyToken(ctx context.Context, token string) (name string, ok bool, err error) {
	err = s.tx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE plumbline.scim_tokens SET last_used_at = now()
			WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > now() RETURNING name`, hashToken(token)).Scan(&name)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	return name, ok, err
}
