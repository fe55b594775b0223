package members

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Statuses of a member, as the membership table keeps them. Only an
// active member may sign in or use a token.
const (
	StatusActive  = "active"
	StatusRemoved = "removed"
	StatusBanned  = "banned"
	StatusLocked  = "locked"
)

// Statuses lists every status.
var Statuses = []string{StatusActive, StatusRemoved, StatusBanned, StatusLocked}

// Who keeps a member's row.
const (
	KeptBySCIM   = "scim"
	KeptByImport = "import"
)

// Person is a member, with what SCIM says of them.
type Person struct {
	// ID is the SCIM resource id, assigned by plumbline.
	ID string
	// PersonID is the person's id in plumbline (the request log's person,
	// the tokens' subject); it never changes.
	PersonID       string
	UserName       string
	Email          string
	DisplayName    string
	GivenName      string
	FamilyName     string
	ExternalID     string
	EmployeeNumber string
	Status         string
	KeptBy         string
	Created        time.Time
	Updated        time.Time
	// Groups are the groups the person is in, read only.
	Groups []Ref
}

// Active reports whether the person may connect.
func (p *Person) Active() bool { return p.Status == StatusActive }

// SetActive makes the person active or not, as SCIM's active attribute
// does. A ban is plumbline's own and outlasts the provider's say; a
// person already kept out stays out in the way they were.
func (p *Person) SetActive(active bool) {
	switch {
	case active && p.Status != StatusBanned:
		p.Status = StatusActive
	case !active && p.Status == StatusActive:
		p.Status = StatusRemoved
	}
}

// Ref names a person or a group: its SCIM id and its display name.
type Ref struct {
	ID, Display string
}

// Group is a group of members.
type Group struct {
	ID         string
	Name       string
	ExternalID string
	Created    time.Time
	Updated    time.Time
	// Members are the group's members, by SCIM id.
	Members []Ref
}

// ErrNotFound means no person or group has the id.
var ErrNotFound = errors.New("not found")

// Conflict means a write would give a value another member or group
// already has. Attribute names it as SCIM does.
type Conflict struct{ Attribute string }

func (c *Conflict) Error() string { return c.Attribute + " is already another's" }

// UnknownMember means a group was given a member no person has the id of;
// Index is its place in the list.
type UnknownMember struct{ Index int }

func (u *UnknownMember) Error() string { return "no person has this id" }

// Store reads and writes the directory in PostgreSQL. It is safe for
// concurrent use.
type Store struct {
	pool *pgxpool.Pool
	role string
}

// NewStore returns a store on pool. When role is set, every transaction
// runs its statements as that role (SET LOCAL ROLE): plumbline's auth
// role, which holds the directory's grants.
func NewStore(pool *pgxpool.Pool, role string) *Store {
	return &Store{pool: pool, role: role}
}

func (s *Store) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if s.role != "" {
			if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{s.role}.Sanitize()); err != nil {
				return err
			}
		}
		return fn(tx)
	})
}

// personColumns are a person's columns, as scanPerson reads them; their
// groups come as two arrays, ids and names.
const personColumns = `m.scim_id::text, m.person_id, coalesce(m.user_name, m.email), m.email, m.display_name,
	coalesce(m.given_name, ''), coalesce(m.family_name, ''), coalesce(m.external_id, ''), coalesce(m.employee_number, ''),
	m.status, coalesce(m.kept_by, ''), m.created_at, m.updated_at,
	coalesce(array_agg(g.group_id::text ORDER BY g.display_name) FILTER (WHERE g.group_id IS NOT NULL), '{}'),
	coalesce(array_agg(g.display_name ORDER BY g.display_name) FILTER (WHERE g.group_id IS NOT NULL), '{}')
	FROM plumbline.members m
	LEFT JOIN plumbline.group_members gm ON gm.person_id = m.person_id
	LEFT JOIN plumbline.groups g ON g.group_id = gm.group_id`

func scanPerson(row pgx.Row) (Person, error) {
	var p Person
	var ids, names []string
	err := row.Scan(&p.ID, &p.PersonID, &p.UserName, &p.Email, &p.DisplayName, &p.GivenName, &p.FamilyName,
		&p.ExternalID, &p.EmployeeNumber, &p.Status, &p.KeptBy, &p.Created, &p.Updated, &ids, &names)
	for i := range ids {
		p.Groups = append(p.Groups, Ref{ID: ids[i], Display: names[i]})
	}
	if errors.Is(err, pgx.ErrNoRows) {
		err = ErrNotFound
	}
	return p, err
}

// People lists every member, by user name.
func (s *Store) People(ctx context.Context) ([]Person, error) {
	return list(ctx, s, "SELECT "+personColumns+" GROUP BY m.person_id ORDER BY lower(coalesce(m.user_name, m.email))", scanPerson)
}

// list reads every row a query finds, as scan reads each.
func list[T any](ctx context.Context, s *Store, query string, scan func(pgx.Row) (T, error)) ([]T, error) {
	var out []T
	err := s.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, query)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
		return err
	})
	return out, err
}

// one reads one row by id, as read does in a transaction.
func one[T any](ctx context.Context, s *Store, id string, read func(context.Context, pgx.Tx, string, bool) (T, error)) (T, error) {
	var v T
	err := s.tx(ctx, func(tx pgx.Tx) error {
		var err error
		v, err = read(ctx, tx, id, false)
		return err
	})
	return v, err
}

// Person returns the member with a SCIM id.
func (s *Store) Person(ctx context.Context, id string) (Person, error) {
	return one(ctx, s, id, person)
}

// person reads a member by SCIM id, locking their row when lock is set.
func person(ctx context.Context, tx pgx.Tx, id string, lock bool) (Person, error) {
	if uuid.Validate(id) != nil {
		return Person{}, ErrNotFound
	}
	q := "SELECT " + personColumns + " WHERE m.scim_id = $1 GROUP BY m.person_id"
	if lock {
		if _, err := tx.Exec(ctx, "SELECT FROM plumbline.members WHERE scim_id = $1 FOR UPDATE", id); err != nil {
			return Person{}, err
		}
	}
	return scanPerson(tx.QueryRow(ctx, q, id))
}

// CreatePerson adds a member, kept by SCIM, and puts it on record as by.
// The person's id is their employee number, or else their new SCIM id.
func (s *Store) CreatePerson(ctx context.Context, by string, p Person) (Person, error) {
	p.ID = uuid.NewString()
	if p.PersonID = p.EmployeeNumber; p.PersonID == "" {
		p.PersonID = p.ID
	}
	var out Person
	err := s.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO plumbline.members (scim_id, person_id, user_name, email, display_name, given_name, family_name,
				external_id, employee_number, status, kept_by)
			VALUES ($1, $2, $3, lower($4), $5, nullif($6, ''), nullif($7, ''), nullif($8, ''), nullif($9, ''), $10, 'scim')`,
			p.ID, p.PersonID, p.UserName, p.Email, p.DisplayName, p.GivenName, p.FamilyName, p.ExternalID, p.EmployeeNumber, p.Status)
		if err != nil {
			return conflict(err)
		}
		if err := record(ctx, tx, by, "create", p.PersonID, ""); err != nil {
			return err
		}
		out, err = person(ctx, tx, p.ID, false)
		return err
	})
	return out, err
}

// ModifyPerson changes the member with a SCIM id as change says, in one
// transaction with their row locked, and puts it on record as by; the
// member is then kept by SCIM. A member who stops being active loses
// their tokens.
func (s *Store) ModifyPerson(ctx context.Context, by, id string, change func(*Person) error) (Person, error) {
	var out Person
	err := s.tx(ctx, func(tx pgx.Tx) error {
		was, err := person(ctx, tx, id, true)
		if err != nil {
			return err
		}
		p := was
		if err := change(&p); err != nil {
			return err
		}
		p.KeptBy = KeptBySCIM
		if err := write(ctx, tx, by, was, p); err != nil {
			return err
		}
		out, err = person(ctx, tx, id, false)
		return err
	})
	return out, err
}

// write stores p over was, the same person's row as it was, and puts the
// change on record; nothing is written when nothing changed.
func write(ctx context.Context, tx pgx.Tx, by string, was, p Person) error {
	action := "update"
	switch {
	case was.Active() && !p.Active():
		action = "deactivate"
	case !was.Active() && p.Active():
		action = "reactivate"
	}
	if p.fields() == was.fields() {
		return nil
	}
	_, err := tx.Exec(ctx, `UPDATE plumbline.members SET user_name = $2, email = lower($3), display_name = $4,
			given_name = nullif($5, ''), family_name = nullif($6, ''), external_id = nullif($7, ''), employee_number = nullif($8, ''),
			status = $9, kept_by = nullif($10, ''), updated_at = now()
		WHERE person_id = $1`,
		p.PersonID, p.UserName, p.Email, p.DisplayName, p.GivenName, p.FamilyName, p.ExternalID, p.EmployeeNumber, p.Status, p.KeptBy)
	if err != nil {
		return conflict(err)
	}
	if action == "deactivate" {
		if err := revokeTokens(ctx, tx, p.PersonID); err != nil {
			return err
		}
	}
	return record(ctx, tx, by, action, p.PersonID, "")
}

// fields are what the membership table keeps of a person that a write
// may change.
type fields struct {
	userName, email, displayName, givenName, familyName, externalID, employeeNumber, status, keptBy string
}

func (p *Person) fields() fields {
	return fields{p.UserName, strings.ToLower(p.Email), p.DisplayName, p.GivenName, p.FamilyName, p.ExternalID,
		p.EmployeeNumber, p.Status, p.KeptBy}
}

// DeletePerson deletes the member with a SCIM id, with their group
// memberships, revokes their tokens, and puts it on record as by.
func (s *Store) DeletePerson(ctx context.Context, by, id string) error {
	return s.tx(ctx, func(tx pgx.Tx) error {
		if uuid.Validate(id) != nil {
			return ErrNotFound
		}
		var personID string
		err := tx.QueryRow(ctx, "DELETE FROM plumbline.members WHERE scim_id = $1 RETURNING person_id", id).Scan(&personID)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if err := revokeTokens(ctx, tx, personID); err != nil {
			return err
		}
		return record(ctx, tx, by, "delete", personID, "")
	})
}

// revokeTokens revokes a person's live access tokens.
func revokeTokens(ctx context.Context, tx pgx.Tx, personID string) error {
	_, err := tx.Exec(ctx, `UPDATE plumbline.oauth_tokens SET revoked_at = now()
		WHERE kind = 'person' AND subject = $1 AND revoked_at IS NULL`, personID)
	return err
}

// record puts a change on record.
func record(ctx context.Context, tx pgx.Tx, by, action, personID, groupID string) error {
	_, err := tx.Exec(ctx, `INSERT INTO plumbline.directory_changes (changed_by, action, person_id, group_id)
		VALUES ($1, $2, nullif($3, ''), nullif($4, '')::uuid)`, by, action, personID, groupID)
	return err
}

// conflict turns a unique violation into a Conflict naming the attribute,
// as SCIM names it.
func conflict(err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "23505" {
		return err
	}
	attr := map[string]string{
		"members_pkey":        "employeeNumber",
		"members_email_key":   "emails",
		"members_user_name":   "userName",
		"groups_display_name": "displayName",
	}[pe.ConstraintName]
	if attr == "" {
		return err
	}
	return &Conflict{Attribute: attr}
}
