package members

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"plumbline/internal/query"
	"plumbline/reports/ask"
)

// This file keeps reach (sql/migrations/0400_reach.sql): which person or
// group may see the floor, which teams, only their own agent's rows, or
// nothing, from which day, set by whom and why.

// Grant is one row of plumbline.reach: what a person or a group may see
// from a day, through a day when To is set.
type Grant struct {
	ID int64
	// Person is a person's id (service:NAME for a service identity); Group
	// a group's display name. Exactly one is set.
	Person, Group string
	// Sees is ask.SeesFloor, SeesTeam (with Team, a team key), SeesOwn,
	// SeesTotals or SeesNone.
	Sees, Team string
	From       time.Time
	To         *time.Time
	SetBy      string
	SetAt      time.Time
	Reason     string
	EndedBy    string
	EndedAt    *time.Time
}

// Subject names whom the grant is for: the person's id, or group:NAME.
func (g Grant) Subject() string {
	if g.Group != "" {
		return "group:" + g.Group
	}
	return g.Person
}

// ErrNoGroup means a grant names a group the directory does not hold.
var ErrNoGroup = errors.New("no group has this name")

// check says what is wrong with a grant's shape, in a sentence.
func (g Grant) check() error {
	switch {
	case (g.Person == "") == (g.Group == ""):
		return errors.New("a grant is for one person or one group")
	case !slices.Contains([]string{ask.SeesFloor, ask.SeesTeam, ask.SeesOwn, ask.SeesTotals, ask.SeesNone}, g.Sees):
		return errors.New("a grant sees floor, team, own, totals or none")
	case (g.Sees == ask.SeesTeam) != (g.Team != ""):
		return errors.New("a grant of a team names the team's key, and only a grant of a team does")
	case g.From.IsZero():
		return errors.New("a grant starts on a day")
	case g.To != nil && g.To.Before(g.From):
		return errors.New("a grant ends on or after the day it starts")
	case g.SetBy == "" || g.Reason == "":
		return errors.New("a grant says who set it and why")
	}
	return nil
}

// AddGrant adds a row of reach and returns its id.
func (s *Store) AddGrant(ctx context.Context, g Grant) (int64, error) {
	if err := g.check(); err != nil {
		return 0, err
	}
	var id int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		group, err := groupID(ctx, tx, g.Group)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO plumbline.reach (person_id, group_id, sees, team_key, from_day, to_day, set_by, reason)
			VALUES (nullif($1, ''), $2, $3, nullif($4, ''), $5, $6, $7, $8) RETURNING reach_id`,
			g.Person, group, g.Sees, g.Team, g.From, g.To, g.SetBy, g.Reason).Scan(&id)
	})
	return id, err
}

// groupID finds a group by name, whatever its case; nil for no name.
func groupID(ctx context.Context, tx pgx.Tx, name string) (*string, error) {
	if name == "" {
		return nil, nil
	}
	var id string
	err := tx.QueryRow(ctx, "SELECT group_id::text FROM plumbline.groups WHERE lower(display_name) = lower($1)", name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNoGroup
	}
	return &id, err
}

// EndGrants ends, as of day, the rows of a person or a group (of one team
// only, when team is set) in force on day or starting after it: each then
// holds through the day before, and none is deleted. It returns how many
// it ended.
func (s *Store) EndGrants(ctx context.Context, person, groupName, team string, day time.Time, by string) (int64, error) {
	if (person == "") == (groupName == "") || by == "" {
		return 0, errors.New("a revoke names one person or one group, and who revokes")
	}
	var n int64
	err := s.tx(ctx, func(tx pgx.Tx) error {
		group, err := groupID(ctx, tx, groupName)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE plumbline.reach SET to_day = greatest(from_day, $4::date) - 1, ended_by = $5, ended_at = now()
			WHERE (person_id = $1 OR group_id = $2::uuid) AND ($3 = '' OR team_key = $3)
			AND (to_day IS NULL OR to_day >= $4)`, person, group, team, day, by)
		n = tag.RowsAffected()
		return err
	})
	return n, err
}

const grantColumns = `SELECT r.reach_id, coalesce(r.person_id, ''), coalesce(g.display_name, ''), r.sees, coalesce(r.team_key, ''),
	r.from_day, r.to_day, r.set_by, r.set_at, r.reason, coalesce(r.ended_by, ''), r.ended_at
	FROM plumbline.reach r LEFT JOIN plumbline.groups g ON g.group_id = r.group_id`

func scanGrant(row pgx.Row) (Grant, error) {
	var g Grant
	err := row.Scan(&g.ID, &g.Person, &g.Group, &g.Sees, &g.Team, &g.From, &g.To, &g.SetBy, &g.SetAt, &g.Reason, &g.EndedBy, &g.EndedAt)
	return g, err
}

// Grants lists the rows of reach in force on day, by subject and team.
func (s *Store) Grants(ctx context.Context, day time.Time) ([]Grant, error) {
	var out []Grant
	err := s.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, grantColumns+` WHERE r.from_day <= $1 AND (r.to_day IS NULL OR r.to_day >= $1)
			ORDER BY coalesce(r.person_id, 'group:' || g.display_name), r.sees, r.team_key, r.reach_id`, day)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Grant, error) { return scanGrant(r) })
		return err
	})
	return out, err
}

// Seen is what one member may see on a day, and why.
type Seen struct {
	Person, Name, Status string
	Reach                ask.Reach
	// Default says no row was in force, so the configured default applied.
	Default bool
}

// Reaches says what every member, and every other person a row names (a
// service identity), may see on day, by person id; def is what a person
// with no row in force sees.
func (s *Store) Reaches(ctx context.Context, day time.Time, def ask.Reach) ([]Seen, error) {
	var out []Seen
	err := s.tx(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `WITH people AS (
				SELECT person_id, display_name, status FROM plumbline.members
				UNION SELECT person_id, '', '' FROM plumbline.reach r
				WHERE person_id IS NOT NULL AND NOT EXISTS (SELECT FROM plumbline.members m WHERE m.person_id = r.person_id))
			SELECT p.person_id, p.display_name, p.status,
				coalesce(array_agg(r.sees ORDER BY r.reach_id) FILTER (WHERE r.reach_id IS NOT NULL), '{}'),
				coalesce(array_agg(coalesce(r.team_key, '') ORDER BY r.reach_id) FILTER (WHERE r.reach_id IS NOT NULL), '{}')
			FROM people p LEFT JOIN plumbline.reach r
				ON (r.person_id = p.person_id OR r.group_id IN (SELECT group_id FROM plumbline.group_members gm WHERE gm.person_id = p.person_id))
				AND r.from_day <= $1 AND (r.to_day IS NULL OR r.to_day >= $1)
			GROUP BY p.person_id, p.display_name, p.status ORDER BY p.person_id`, day)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Seen, error) {
			var v Seen
			var sees, teams []string
			if err := r.Scan(&v.Person, &v.Name, &v.Status, &sees, &teams); err != nil {
				return v, err
			}
			v.Reach, v.Default = fold(sees, teams, def)
			return v, nil
		})
		return err
	})
	return out, err
}

// fold makes one reach of the rows in force: their union, or def when
// there are none.
func fold(sees, teams []string, def ask.Reach) (ask.Reach, bool) {
	if len(sees) == 0 {
		return def, true
	}
	var r ask.Reach
	for i := range sees {
		r.Add(sees[i], teams[i])
	}
	return r, false
}

// ReachSQL reads the rows of reach in force for person $1 on day $2, their
// own and their groups': what each sees, and its team key (empty but for
// a team), as two arrays in the rows' order. FoldReach makes them one reach.
var ReachSQL = `SELECT coalesce(array_agg(x.sees ORDER BY x.reach_id), '{}'), coalesce(array_agg(coalesce(x.team_key, '') ORDER BY x.reach_id), '{}')
	FROM ` + query.ReachInForce("$1::text", "$2::date")

// FoldReach makes one reach of the rows ReachSQL read: their union, or def
// when there are none.
func FoldReach(sees, teams []string, def ask.Reach) ask.Reach {
	r, _ := fold(sees, teams, def)
	return r
}

// Reach resolves what a person may see on a day: the union of the rows in
// force that day for them and every group they are in, or def when none is.
func (s *Store) Reach(ctx context.Context, person string, day time.Time, def ask.Reach) (ask.Reach, error) {
	var sees, teams []string
	err := s.tx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, ReachSQL, person, day).Scan(&sees, &teams)
	})
	if err != nil {
		return ask.Reach{}, fmt.Errorf("read reach: %w", err)
	}
	return FoldReach(sees, teams, def), nil
}

// ReachReader resolves a person's reach on a day, or def when no row is in
// force: a Store, or pgstore's reader of it, which holds a call to the
// pool's acquire and statement timeouts.
type ReachReader interface {
	Reach(ctx context.Context, person string, day time.Time, def ask.Reach) (ask.Reach, error)
}

// DefaultReachTTL is how long a ReachSource keeps a person's reach before
// reading it again: a grant or a revoke holds on every replica within it.
// It is as long as the database keeps one (query.ReachKept).
const DefaultReachTTL = query.ReachKept

// ReachSource resolves callers' reach from the directory for the engine
// (ask.ReachSource), keeping each person's for TTL.
type ReachSource struct {
	Store ReachReader
	// Default is what a person with no row in force sees.
	Default ask.Reach
	// TTL is how long a person's reach is kept. If zero,
	// DefaultReachTTL; negative keeps nothing.
	TTL time.Duration

	mu   sync.Mutex
	seen map[reachKey]keptReach
}

type reachKey struct {
	person string
	day    time.Time
}

type keptReach struct {
	reach ask.Reach
	at    time.Time
}

var _ ask.ReachSource = (*ReachSource)(nil)

// Reach returns what person may see on day.
func (s *ReachSource) Reach(ctx context.Context, person string, day time.Time) (ask.Reach, error) {
	ttl := s.TTL
	if ttl == 0 {
		ttl = DefaultReachTTL
	}
	k := reachKey{person, day}
	if ttl > 0 {
		s.mu.Lock()
		v, ok := s.seen[k]
		s.mu.Unlock()
		if ok && time.Since(v.at) < ttl {
			return v.reach, nil
		}
	}
	r, err := s.Store.Reach(ctx, person, day, s.Default)
	if err != nil || ttl < 0 {
		return r, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen == nil || len(s.seen) > 10000 {
		s.seen = map[reachKey]keptReach{}
	}
	s.seen[k] = keptReach{r, time.Now()}
	return r, nil
}
