package members_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"plumbline/internal/members"
	"plumbline/internal/pgtest"
	"plumbline/reports/ask"
)

func day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return d
}

// Reach is dated rows, written and read as plumbline's login through the
// auth role's grants: a person's own rows and their groups' are joined,
// rows hold from their first day through their last, a revoke ends rows
// without deleting them, and a person with no row in force sees the
// default.
func TestReach(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	s := store(t, db)
	admin := db.Conn(t)
	if _, err := admin.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status) VALUES
		('p1', 'p1@floor.example', 'Team Lead', 'active'), ('p2', 'p2@floor.example', 'Floor Manager', 'active'),
		('p3', 'p3@floor.example', 'Agent Own', 'active'), ('p4', 'p4@floor.example', 'No Row', 'active');
		INSERT INTO plumbline.groups (display_name) VALUES ('Floor managers');
		INSERT INTO plumbline.group_members SELECT group_id, 'p2' FROM plumbline.groups`); err != nil {
		t.Fatal(err)
	}
	to := day("2026-10-31")
	for _, g := range []members.Grant{
		{Person: "p1", Sees: ask.SeesTeam, Team: "t1", From: day("2026-10-01")},
		{Person: "p1", Sees: ask.SeesTeam, Team: "t2", From: day("2026-10-01"), To: &to},
		{Group: "floor MANAGERS", Sees: ask.SeesFloor, From: day("2026-09-01")},
		{Person: "p3", Sees: ask.SeesOwn, From: day("2026-10-01")},
		{Person: "service:nightly", Sees: ask.SeesNone, From: day("2026-10-01")},
	} {
		g.SetBy, g.Reason = "Dana Okafor", "test"
		if _, err := s.AddGrant(ctx, g); err != nil {
			t.Fatalf("grant %+v: %v", g, err)
		}
	}
	if _, err := s.AddGrant(ctx, members.Grant{Group: "nobody", Sees: ask.SeesFloor, From: day("2026-10-01"), SetBy: "x", Reason: "y"}); !errors.Is(err, members.ErrNoGroup) {
		t.Errorf("a grant to a group no one has: %v, want ErrNoGroup", err)
	}
	if _, err := s.AddGrant(ctx, members.Grant{Person: "p1", Sees: ask.SeesTeam, From: day("2026-10-01"), SetBy: "x", Reason: "y"}); err == nil {
		t.Error("a grant of a team without a team key was taken")
	}

	reach := func(person, on string, def ask.Reach) string {
		t.Helper()
		r, err := s.Reach(ctx, person, day(on), def)
		if err != nil {
			t.Fatal(err)
		}
		return r.String()
	}
	for _, tc := range []struct {
		person, on string
		def        ask.Reach
		want       string
	}{
		{"p1", "2026-10-15", ask.Reach{}, "team:t1,t2"},
		{"p1", "2026-11-01", ask.Reach{}, "team:t1"},  // t2 ended on 2026-10-31
		{"p1", "2026-09-30", ask.FloorReach, "floor"}, // before any row: the default
		{"p1", "2026-09-30", ask.Reach{}, "none"},     // the other default
		{"p2", "2026-10-15", ask.Reach{}, "floor"},    // through the group
		{"p3", "2026-10-15", ask.FloorReach, "own"},   // a row overrides the default
		{"p4", "2026-10-15", ask.FloorReach, "floor"}, // no row: the default
		{"service:nightly", "2026-10-15", ask.FloorReach, "none"},
	} {
		if got := reach(tc.person, tc.on, tc.def); got != tc.want {
			t.Errorf("%s on %s (default %s): %s, want %s", tc.person, tc.on, tc.def, got, tc.want)
		}
	}

	// Revoked from 2026-11-05: the row of t1 ends on 2026-11-04 and stays.
	n, err := s.EndGrants(ctx, "p1", "", "", day("2026-11-05"), "Dana Okafor")
	if err != nil || n != 1 {
		t.Fatalf("revoke: %d, %v; want 1 row ended", n, err)
	}
	if got := reach("p1", "2026-11-04", ask.Reach{}); got != "team:t1" {
		t.Errorf("the day before the revoke: %s, want team:t1", got)
	}
	if got := reach("p1", "2026-11-05", ask.FloorReach); got != "floor" {
		t.Errorf("from the revoke on, no row: %s, want the default", got)
	}
	var rows, ended int
	if err := admin.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE to_day = '2026-11-04' AND ended_by = 'Dana Okafor')
		FROM plumbline.reach WHERE person_id = 'p1'`).Scan(&rows, &ended); err != nil || rows != 2 || ended != 1 {
		t.Errorf("p1's rows after the revoke: %d rows, %d ended (%v); want 2 kept, 1 ended", rows, ended, err)
	}

	// A group's rows end for every member of it.
	if n, err := s.EndGrants(ctx, "", "Floor managers", "", day("2026-12-01"), "Dana Okafor"); err != nil || n != 1 {
		t.Fatalf("revoke the group's: %d, %v; want 1 row ended", n, err)
	}
	if got := reach("p2", "2026-12-01", ask.Reach{}); got != "none" {
		t.Errorf("p2 once the group's row ended: %s, want the default", got)
	}
	if got := reach("p2", "2026-11-30", ask.Reach{}); got != "floor" {
		t.Errorf("p2 the day before: %s, want floor", got)
	}

	// The list of one day agrees with what each person resolves to.
	grants, err := s.Grants(ctx, day("2026-10-15"))
	if err != nil || len(grants) != 5 {
		t.Fatalf("grants on 2026-10-15: %d, %v; want 5", len(grants), err)
	}
	seen, err := s.Reaches(ctx, day("2026-10-15"), ask.FloorReach)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range seen {
		got[v.Person] = v.Reach.String()
		if v.Default {
			got[v.Person] += " (default)"
		}
	}
	want := map[string]string{"p1": "team:t1,t2", "p2": "floor", "p3": "own", "p4": "floor (default)", "service:nightly": "none"}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("list: %s sees %q, want %q", p, got[p], w)
		}
	}

	// The login cannot delete a row, nor rewrite what it gave.
	if _, err := admin.Exec(ctx, "SET ROLE "+pgtest.Roles.Auth); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{"DELETE FROM plumbline.reach", "UPDATE plumbline.reach SET sees = 'floor'"} {
		if _, err := admin.Exec(ctx, stmt); err == nil {
			t.Errorf("the auth role could run %s", stmt)
		}
	}
}

// A source of reach keeps a person's for its TTL, and gives the default
// to a person with no row.
func TestReachSource(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	s := store(t, db)
	src := &members.ReachSource{Store: s, Default: ask.Reach{}, TTL: time.Hour}
	r, err := src.Reach(ctx, "p9", day("2026-10-15"))
	if err != nil || !r.None() {
		t.Fatalf("no row, default none: %v, %v", r, err)
	}
	if _, err := s.AddGrant(ctx, members.Grant{Person: "p9", Sees: ask.SeesFloor, From: day("2026-10-01"), SetBy: "x", Reason: "y"}); err != nil {
		t.Fatal(err)
	}
	if r, _ = src.Reach(ctx, "p9", day("2026-10-15")); !r.None() {
		t.Errorf("within the TTL: %v, want the kept none", r)
	}
	src = &members.ReachSource{Store: s, TTL: -1}
	if r, _ = src.Reach(ctx, "p9", day("2026-10-15")); !r.Floor {
		t.Errorf("read again: %v, want floor", r)
	}
}
