package oauth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/signin"
)

// Store keeps plumbline's sign-in state in PostgreSQL: it reads the
// membership table the directory keeps (package members), and keeps the
// authorization server's clients, sessions, consents, codes and tokens.
// Secrets are stored only as SHA-256 hashes, and every expiry is judged by
// the database's clock. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	role string
}

// NewStore returns a store on pool. When role is set, every transaction runs
// its statements as that role (SET LOCAL ROLE), so the login needs nothing
// on the sign-in tables beyond membership of the role.
func NewStore(pool *pgxpool.Pool, role string) *Store {
	return &Store{pool: pool, role: role}
}

// Limits of the token store.
const (
	// MaxPersonTokens is how many live tokens a person may hold; issuing
	// one more revokes the oldest.
	MaxPersonTokens = 10
	codeTTL         = 5 * time.Minute
	sessionTTL      = time.Hour
)

// Token kinds.
const (
	KindPerson  = "person"
	KindService = "service"
)

// Statuses of a member. Only an active member may sign in or use a token.
const (
	StatusActive  = "active"
	StatusRemoved = "removed"
	StatusBanned  = "banned"
	StatusLocked  = "locked"
)

// Member is one row of the membership table.
type Member struct {
	PersonID string
	Email    string
	Name     string
	Status   string
}

// errNotFound means no row matched.
var errNotFound = errors.New("not found")

func (s *Store) tx(ctx context.Context, readOnly bool, fn func(pgx.Tx) error) error {
	opts := pgx.TxOptions{}
	if readOnly {
		opts.AccessMode = pgx.ReadOnly
	}
	return pgx.BeginTxFunc(ctx, s.pool, opts, func(tx pgx.Tx) error {
		if s.role != "" {
			if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{s.role}.Sanitize()); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// newSecret returns 256 random bits, base64url-encoded after prefix, and
// the SHA-256 hash under which it is stored.
func newSecret(prefix string) (string, []byte) {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand)
	s := prefix + base64.RawURLEncoding.EncodeToString(b)
	return s, hashSecret(s)
}

func hashSecret(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

// Member returns the member with a person id.
func (s *Store) Member(ctx context.Context, personID string) (Member, error) {
	return s.memberWhere(ctx, "person_id = $1", personID)
}

// MemberByEmail returns the member with an email address (any case).
func (s *Store) MemberByEmail(ctx context.Context, email string) (Member, error) {
	return s.memberWhere(ctx, "email = lower($1)", email)
}

func (s *Store) memberWhere(ctx context.Context, where, arg string) (Member, error) {
	var m Member
	err := s.tx(ctx, true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SELECT person_id, email, display_name, status FROM plumbline.members WHERE "+where, arg).
			Scan(&m.PersonID, &m.Email, &m.Name, &m.Status)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return m, errNotFound
	}
	return m, err
}

// ActivePeople lists the active members by name, for the development
// sign-in page.
func (s *Store) ActivePeople(ctx context.Context) ([]signin.Person, error) {
	var out []signin.Person
	err := s.tx(ctx, true, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT email, display_name FROM plumbline.members WHERE status = 'active' ORDER BY display_name, person_id")
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowToStructByPos[signin.Person])
		return err
	})
	return out, err
}

// PutMember inserts or updates a member. The directory (package members)
// keeps the membership table; the demo and tests use this to stand in for
// it.
func (s *Store) PutMember(ctx context.Context, m Member) error {
	return s.tx(ctx, false, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status) VALUES ($1, lower($2), $3, $4)
			ON CONFLICT (person_id) DO UPDATE SET email = excluded.email, display_name = excluded.display_name,
				status = excluded.status, updated_at = now()`, m.PersonID, m.Email, m.Name, m.Status)
		return err
	})
}

// grant is what a token is issued for.
type grant struct {
	kind     string
	subject  string
	clientID string
	scope    []string
	issuer   string
	resource string
	ttl      time.Duration
	codeHash []byte
}

// issue stores a new token for g and returns it with its expiry. A person
// holding more than MaxPersonTokens live tokens loses the oldest.
func issue(ctx context.Context, tx pgx.Tx, g grant) (string, time.Time, error) {
	if g.kind == KindPerson {
		// Serialise a person's issuances so that the cap holds under races.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('plumbline.tokens:' || $1))", g.subject); err != nil {
			return "", time.Time{}, err
		}
	}
	token, hash := newSecret("plb_")
	var expires time.Time
	err := tx.QueryRow(ctx, `INSERT INTO plumbline.oauth_tokens
			(token_hash, kind, subject, client_id, scope, issuer, resource, code_hash, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() + make_interval(secs => $9))
		RETURNING expires_at`,
		hash, g.kind, g.subject, g.clientID, strings.Join(g.scope, " "), g.issuer, g.resource, g.codeHash, g.ttl.Seconds()).Scan(&expires)
	if err != nil || g.kind != KindPerson {
		return token, expires, err
	}
	_, err = tx.Exec(ctx, `UPDATE plumbline.oauth_tokens SET revoked_at = now()
		WHERE token_hash IN (SELECT token_hash FROM plumbline.oauth_tokens
			WHERE kind = 'person' AND subject = $1 AND revoked_at IS NULL AND expires_at > now()
			ORDER BY created_at DESC, token_id DESC OFFSET $2)`, g.subject, MaxPersonTokens)
	return token, expires, err
}

// tokenRow is what a request's token row says.
type tokenRow struct {
	kind, subject, clientID string
	scope                   []string
	issuer, resource        string
	expires                 time.Time
	found                   bool // the row exists
	live                    bool // neither revoked nor expired, and its person (if any) an active member
}

// liveColumns read a token's row, with whether it is live: not revoked,
// not expired, and for a person's token, the person an active member.
// Membership is read with the row, so removing someone cuts their access
// on their next request.
const liveColumns = `t.kind, t.subject, t.client_id, t.scope, t.issuer, t.resource, t.expires_at,
	t.revoked_at IS NULL AND t.expires_at > now()
		AND (t.kind <> 'person' OR EXISTS (SELECT FROM plumbline.members m WHERE m.person_id = t.subject AND m.status = 'active'))`

// tokenSQL reads a token's row by its hash.
const tokenSQL = `SELECT ` + liveColumns + ` FROM plumbline.oauth_tokens t WHERE t.token_hash = $1`

// tokensSQL reads the rows of many tokens by their hashes, each with its
// hash.
const tokensSQL = `SELECT t.token_hash, ` + liveColumns + ` FROM plumbline.oauth_tokens t WHERE t.token_hash = ANY($1)`

// scanLive scans a token's row from columns, after those dest holds.
func scanLive(row pgx.Row, r *tokenRow, dest ...any) error {
	var scope string
	err := row.Scan(append(dest, &r.kind, &r.subject, &r.clientID, &scope, &r.issuer, &r.resource, &r.expires, &r.live)...)
	r.scope, r.found = strings.Fields(scope), err == nil
	return err
}

// queueTokens queues the read of many tokens' rows, by their hashes, as
// the store's role, into a batch whose transaction another statement ends;
// once the batch has run them, found gets each row there is, by hash.
func (s *Store) queueTokens(b *pgx.Batch, hashes [][]byte, found func(map[string]tokenRow)) {
	b.Queue("SELECT set_config('role', $1, true)", cmp.Or(s.role, "none"))
	b.Queue(tokensSQL, hashes).Query(func(rows pgx.Rows) error {
		byHash := make(map[string]tokenRow, len(hashes))
		for rows.Next() {
			var hash []byte
			var r tokenRow
			if err := scanLive(rows, &r, &hash); err != nil {
				return err
			}
			byHash[string(hash)] = r
		}
		if err := rows.Err(); err != nil {
			return err
		}
		found(byHash)
		return nil
	})
}

// token reads a token's row by the token itself, in one round trip; r.found
// says whether there is one.
func (s *Store) token(ctx context.Context, token string) (r tokenRow, err error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN READ ONLY")
	b.Queue("SELECT set_config('role', $1, true)", cmp.Or(s.role, "none"))
	b.Queue(tokenSQL, hashSecret(token)).QueryRow(func(row pgx.Row) error {
		if err := scanLive(row, &r); !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		return nil
	})
	b.Queue("COMMIT")
	return r, s.pool.SendBatch(ctx, b).Close()
}

// revokeToken revokes a token if it was issued to clientID; it reports
// nothing either way (RFC 7009 lets no one probe for tokens).
func (s *Store) revokeToken(ctx context.Context, token, clientID string) error {
	return s.tx(ctx, false, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE plumbline.oauth_tokens SET revoked_at = now()
			WHERE token_hash = $1 AND client_id = $2 AND revoked_at IS NULL`, hashSecret(token), clientID)
		return err
	})
}

// TokenInfo is a token as `plumbline token list` shows it.
type TokenInfo struct {
	ID       int64
	Kind     string
	Subject  string
	ClientID string
	Scope    []string
	Created  time.Time
	Expires  time.Time
	Revoked  *time.Time
}

// CreateServiceToken issues a token for a background agent, named service,
// for the resource and issuer of cfg.
func (s *Store) CreateServiceToken(ctx context.Context, cfg *Config, service string, scope []string, ttl time.Duration) (string, TokenInfo, error) {
	return s.mint(ctx, grant{kind: KindService, subject: service, clientID: CLIClient, scope: scope,
		issuer: cfg.Issuer(), resource: cfg.Resource(), ttl: ttl})
}

// CreatePersonToken issues a token for a member without the browser flow,
// for the demo's ready-made token. The member must be active.
func (s *Store) CreatePersonToken(ctx context.Context, cfg *Config, personID string, ttl time.Duration) (string, TokenInfo, error) {
	m, err := s.Member(ctx, personID)
	if err != nil || m.Status != StatusActive {
		return "", TokenInfo{}, errors.New("only an active member can be given a token")
	}
	return s.mint(ctx, grant{kind: KindPerson, subject: personID, clientID: CLIClient, scope: PersonScopes,
		issuer: cfg.Issuer(), resource: cfg.Resource(), ttl: ttl})
}

func (s *Store) mint(ctx context.Context, g grant) (string, TokenInfo, error) {
	var token string
	var info TokenInfo
	err := s.tx(ctx, false, func(tx pgx.Tx) error {
		var err error
		if token, _, err = issue(ctx, tx, g); err != nil {
			return err
		}
		info, err = scanToken(tx.QueryRow(ctx, tokenColumns+" WHERE token_hash = $1", hashSecret(token)))
		return err
	})
	return token, info, err
}

const tokenColumns = "SELECT token_id, kind, subject, client_id, scope, created_at, expires_at, revoked_at FROM plumbline.oauth_tokens"

func scanToken(row pgx.Row) (TokenInfo, error) {
	var t TokenInfo
	var scope string
	err := row.Scan(&t.ID, &t.Kind, &t.Subject, &t.ClientID, &scope, &t.Created, &t.Expires, &t.Revoked)
	t.Scope = strings.Fields(scope)
	return t, err
}

// ListTokens lists tokens newest first: live ones only, unless all.
func (s *Store) ListTokens(ctx context.Context, all bool) ([]TokenInfo, error) {
	q := tokenColumns + " WHERE revoked_at IS NULL AND expires_at > now() ORDER BY token_id DESC"
	if all {
		q = tokenColumns + " ORDER BY token_id DESC"
	}
	var out []TokenInfo
	err := s.tx(ctx, true, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, q)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (TokenInfo, error) { return scanToken(r) })
		return err
	})
	return out, err
}

// RevokeTokens revokes live tokens chosen by id, by service name or by
// person id, and returns how many it revoked.
func (s *Store) RevokeTokens(ctx context.Context, ids []int64, service, personID string) (int64, error) {
	var n int64
	err := s.tx(ctx, false, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE plumbline.oauth_tokens SET revoked_at = now()
			WHERE revoked_at IS NULL AND (token_id = ANY($1)
				OR (kind = 'service' AND subject = $2) OR (kind = 'person' AND subject = $3))`, ids, service, personID)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

// newSession signs a person in for the consent page and returns the
// session's cookie value.
func (s *Store) newSession(ctx context.Context, personID string) (string, error) {
	id, hash := newSecret("")
	csrf, _ := newSecret("")
	err := s.tx(ctx, false, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO plumbline.oauth_sessions (session_hash, person_id, csrf, expires_at)
			VALUES ($1, $2, $3, now() + make_interval(secs => $4))`, hash, personID, csrf, sessionTTL.Seconds())
		return err
	})
	return id, err
}

// session returns the person and CSRF token of a live session.
func (s *Store) session(ctx context.Context, id string) (personID, csrf string, err error) {
	err = s.tx(ctx, true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SELECT person_id, csrf FROM plumbline.oauth_sessions WHERE session_hash = $1 AND expires_at > now()",
			hashSecret(id)).Scan(&personID, &csrf)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		err = errNotFound
	}
	return personID, csrf, err
}

// consented returns the scope a person last granted a client for a
// redirect URI.
func (s *Store) consented(ctx context.Context, personID, clientID, redirectURI string) ([]string, error) {
	var scope string
	err := s.tx(ctx, true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SELECT scope FROM plumbline.oauth_consents WHERE person_id = $1 AND client_id = $2 AND redirect_uri = $3",
			personID, clientID, redirectURI).Scan(&scope)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNotFound
	}
	return strings.Fields(scope), err
}

// codeGrant is an authorization request a person approved.
type codeGrant struct {
	clientID, personID, redirectURI, challenge string
	scope                                      []string
	resource                                   string
}

// newCode records consent (when remember is set) and an authorization code
// for c, and returns the code.
func (s *Store) newCode(ctx context.Context, c codeGrant, remember bool) (string, error) {
	secret, hash := newSecret("")
	err := s.tx(ctx, false, func(tx pgx.Tx) error {
		if remember {
			if _, err := tx.Exec(ctx, `INSERT INTO plumbline.oauth_consents (person_id, client_id, redirect_uri, scope) VALUES ($1, $2, $3, $4)
				ON CONFLICT (person_id, client_id, redirect_uri) DO UPDATE SET scope = excluded.scope, granted_at = now()`,
				c.personID, c.clientID, c.redirectURI, strings.Join(c.scope, " ")); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO plumbline.oauth_codes
				(code_hash, client_id, person_id, redirect_uri, code_challenge, scope, resource, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
			hash, c.clientID, c.personID, c.redirectURI, c.challenge, strings.Join(c.scope, " "), c.resource, codeTTL.Seconds())
		return err
	})
	return secret, err
}

// Reasons a code is not redeemed.
var (
	errCodeInvalid = errors.New("the code is unknown or expired, or was issued for another client, verifier or redirect URI; " +
		"a code is spent by the first attempt to redeem it, even a failed one, so start the authorization again")
	errCodeReused = errors.New("the code was already used, by a redemption or a failed attempt; any token issued for it is revoked, " +
		"so start the authorization again")
	errNotMember   = errors.New("the person is not an active member")
	errWrongTarget = errors.New("the resource is not the one the code was issued for")
)

// redemption is a token request for a code.
type redemption struct {
	code        string
	clientID    string
	challenge   string // S256 of the verifier sent
	redirectURI string // as sent; empty if not sent
	resource    string // as sent; empty if not sent
	issuer      string
	ttl         time.Duration
}

// redeem exchanges a code for a token. One conditional UPDATE marks the
// code used, so of two racing redemptions exactly one wins; a code is
// spent by the first redemption that names it, even one whose client,
// verifier, redirect URI or resource does not match (a guessed verifier
// gets one try); a redemption of a used code revokes every token issued
// for it.
func (s *Store) redeem(ctx context.Context, r redemption) (token string, expires time.Time, scope []string, err error) {
	hash := hashSecret(r.code)
	var reused bool
	var refused error // why a code spent by this redemption bought nothing
	err = s.tx(ctx, false, func(tx pgx.Tx) error {
		var matches bool
		var personID, scopeText, resource string
		err := tx.QueryRow(ctx, `UPDATE plumbline.oauth_codes SET used_at = now()
			WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
			RETURNING client_id = $2 AND code_challenge = $3 AND ($4 = '' OR redirect_uri = $4), person_id, scope, resource`,
			hash, r.clientID, r.challenge, r.redirectURI).Scan(&matches, &personID, &scopeText, &resource)
		if errors.Is(err, pgx.ErrNoRows) {
			tag, err := tx.Exec(ctx, `UPDATE plumbline.oauth_tokens SET revoked_at = now()
				WHERE code_hash = $1 AND revoked_at IS NULL
					AND EXISTS (SELECT 1 FROM plumbline.oauth_codes WHERE code_hash = $1 AND used_at IS NOT NULL)`, hash)
			if err != nil {
				return err
			}
			var used bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM plumbline.oauth_codes WHERE code_hash = $1 AND used_at IS NOT NULL)", hash).Scan(&used); err != nil {
				return err
			}
			reused = used || tag.RowsAffected() > 0
			return nil // commit the revocation
		}
		if err != nil {
			return err
		}
		var status string
		switch {
		case !matches:
			refused = errCodeInvalid
		case r.resource != "" && r.resource != resource:
			refused = errWrongTarget
		case tx.QueryRow(ctx, "SELECT status FROM plumbline.members WHERE person_id = $1", personID).Scan(&status) != nil || status != StatusActive:
			refused = errNotMember
		}
		if refused != nil {
			return nil // commit the code's use
		}
		scope = strings.Fields(scopeText)
		token, expires, err = issue(ctx, tx, grant{kind: KindPerson, subject: personID, clientID: r.clientID, scope: scope,
			issuer: r.issuer, resource: resource, ttl: r.ttl, codeHash: hash})
		return err
	})
	switch {
	case err != nil:
		return "", time.Time{}, nil, err
	case refused != nil:
		return "", time.Time{}, nil, refused
	case token == "" && reused:
		return "", time.Time{}, nil, errCodeReused
	case token == "":
		return "", time.Time{}, nil, errCodeInvalid
	}
	return token, expires, scope, nil
}

// client is a client registered through Dynamic Client Registration.
func (s *Store) registeredClient(ctx context.Context, clientID string) (*Client, error) {
	c := &Client{ID: clientID}
	err := s.tx(ctx, true, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SELECT secret_hash, auth_method, client_name, redirect_uris FROM plumbline.oauth_clients WHERE client_id = $1", clientID).
			Scan(&c.secretHash, &c.AuthMethod, &c.Name, &c.RedirectURIs)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errNotFound
	}
	return c, err
}

// Registration limits: a source may register RegistrationsPerHour
// clients in any hour.
const (
	RegistrationsPerHour = 20
	registrationWindow   = time.Hour
)

// register stores a client registered through Dynamic Client
// Registration from source (httpguard.Source), unless the source has
// registered RegistrationsPerHour clients in the last hour already: then it
// stores nothing and returns how long until the oldest of those leaves the
// hour. Registrations from one source are taken one at a time (an advisory
// lock on the source), so replicas racing cannot both take the last one.
func (s *Store) register(ctx context.Context, c *Client, applicationType, source string) (wait time.Duration, err error) {
	err = s.tx(ctx, false, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('plumbline.oauth_clients ' || $1, 0))", source); err != nil {
			return err
		}
		var secs *float64
		err := tx.QueryRow(ctx, `SELECT extract(epoch FROM created_at + make_interval(secs => $2) - now())::float8
			FROM plumbline.oauth_clients
			WHERE registered_from = $1::inet AND created_at > now() - make_interval(secs => $2)
			ORDER BY created_at DESC OFFSET $3 - 1 LIMIT 1`, source, registrationWindow.Seconds(), RegistrationsPerHour).Scan(&secs)
		if err == nil {
			wait = time.Duration(max(*secs, 1) * float64(time.Second))
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO plumbline.oauth_clients
				(client_id, secret_hash, auth_method, client_name, redirect_uris, application_type, registered_from)
			VALUES ($1, $2, $3, $4, $5, $6, $7::inet)`, c.ID, c.secretHash, c.AuthMethod, c.Name, c.RedirectURIs, applicationType, source)
		return err
	})
	return wait, err
}

// Limits on failed client authentication at the token and revocation
// endpoints: a source may fail ClientFailuresPerSource times in any
// ClientFailureWindow, and a client with a secret ClientFailuresPerClient
// times, from whatever sources. Past either, every authentication from
// that source, or of that client, is refused until the oldest failure
// counted leaves the window, the right secret too: a guesser learns
// nothing more.
const (
	ClientFailuresPerSource = 10
	ClientFailuresPerClient = 30
	ClientFailureWindow     = 15 * time.Minute
)

// judgeClient holds a client authentication from source (httpguard.Source)
// to the limits on failures, counted in plumbline.oauth_client_failures so
// that every replica sees them: ok says whether its credentials held, and
// guessed names the client with a secret it tried ("" for any other: a
// public client has no secret to guess, and counting failures against it
// would let anyone lock it out). While the source or the client is at its
// limit, it records nothing and returns how long until the oldest failure
// counted leaves the window; otherwise it records a failure, if this was
// one, and returns 0. Authentications from one source, and of one client,
// are judged one at a time (advisory locks, the source's first), so that
// replicas racing cannot both take the last failure.
func (s *Store) judgeClient(ctx context.Context, guessed, source string, ok bool) (wait time.Duration, err error) {
	err = s.tx(ctx, false, func(tx pgx.Tx) error {
		keys := []string{"source " + source}
		if guessed != "" {
			keys = append(keys, "client "+guessed)
		}
		for _, key := range keys {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('plumbline.oauth_client_failures ' || $1, 0))", key); err != nil {
				return err
			}
		}
		var secs *float64
		err := tx.QueryRow(ctx, `SELECT max(wait) FROM (
				(SELECT failed_at FROM plumbline.oauth_client_failures
				 WHERE source = $1::inet AND failed_at > now() - make_interval(secs => $3)
				 ORDER BY failed_at DESC OFFSET $4 - 1 LIMIT 1)
				UNION ALL
				(SELECT failed_at FROM plumbline.oauth_client_failures
				 WHERE client_id = $2 AND failed_at > now() - make_interval(secs => $3)
				 ORDER BY failed_at DESC OFFSET $5 - 1 LIMIT 1)
			) AS at_limit, LATERAL (SELECT extract(epoch FROM failed_at + make_interval(secs => $3) - now())::float8 AS wait) AS w`,
			source, guessed, ClientFailureWindow.Seconds(), ClientFailuresPerSource, ClientFailuresPerClient).Scan(&secs)
		switch {
		case err != nil:
			return err
		case secs != nil:
			wait = time.Duration(max(*secs, 1) * float64(time.Second))
			return nil
		case ok:
			return nil
		}
		_, err = tx.Exec(ctx, "INSERT INTO plumbline.oauth_client_failures (client_id, source) VALUES (nullif($1, ''), $2::inet)", guessed, source)
		return err
	})
	return wait, err
}
