package main

import (
	"context"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// Reach from the command line, as plumbline's login: a team and a group
// granted, the list of a day showing who sees what (the default for a
// member with no row), a revoke ending a row, and bad calls refused before
// anything is written.
func TestAccessFromTheCommandLine(t *testing.T) {
	db := pgtest.NewDB(t)
	if _, err := db.Conn(t).Exec(context.Background(), `INSERT INTO plumbline.members (person_id, email, display_name, status) VALUES
		('a0001', 'dana@floor.example', 'Dana Okafor', 'active'), ('a0002', 'ravi@floor.example', 'Ravi Shah', 'active');
		INSERT INTO plumbline.groups (display_name) VALUES ('Floor managers')`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "access", "grant", "--db", db.AppDSN, "--person", "a0001", "--sees", "team", "--team", "kestrels,hawks",
		"--from", "2026-10-01", "--by", "Mo Reyes", "--reason", "leads the Kestrels and the Hawks")
	if code != 0 || out != "Granted 1: a0001 sees team:kestrels from 2026-10-01.\nGranted 2: a0001 sees team:hawks from 2026-10-01.\n" {
		t.Fatalf("grant teams: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, "access", "grant", "--db", db.AppDSN, "--group", "Floor managers", "--sees", "floor",
		"--from", "2026-10-01", "--to", "2026-12-31", "--by", "Mo Reyes", "--reason", "floor managers see every team"); code != 0 ||
		out != "Granted 3: group:Floor managers sees floor from 2026-10-01 through 2026-12-31.\n" {
		t.Fatalf("grant a group: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, "access", "list", "--db", db.AppDSN, "--on", "2026-10-15", "--default-reach", "none")
	for _, want := range []string{
		"Grants in force on 2026-10-15:",
		"group:Floor managers  floor",
		"a0001                 team:hawks",
		"Who sees what on 2026-10-15 (no grant in force: the default, none):",
		"a0001   Dana Okafor  active  team:hawks,kestrels\n",
		"a0002   Ravi Shah    active  none (default)\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("list: exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	if code, out, _ = runCLI(t, "access", "revoke", "--db", db.AppDSN, "--person", "a0001", "--team", "hawks", "--on", "2026-11-01", "--by", "Mo Reyes"); code != 0 ||
		!strings.HasPrefix(out, "Ended 1 grant(s) as of 2026-11-01") {
		t.Errorf("revoke: exit %d\n%s", code, out)
	}
	if code, out, _ = runCLI(t, "access", "list", "--db", db.AppDSN, "--on", "2026-11-01"); code != 0 || !strings.Contains(out, "a0001   Dana Okafor  active  team:kestrels\n") ||
		!strings.Contains(out, "a0002   Ravi Shah    active  floor (default)\n") {
		t.Errorf("list after the revoke: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{
		{"grant", "--person", "a0001", "--group", "Floor managers", "--sees", "floor", "--by", "x", "--reason", "y"},
		{"grant", "--person", "a0001", "--sees", "team", "--by", "x", "--reason", "y"},
		{"grant", "--person", "a0001", "--sees", "floor", "--by", "x"},
		{"grant", "--person", "a0001", "--by", "x", "--reason", "y"},
		{"grant", "--group", "nobody", "--sees", "floor", "--by", "x", "--reason", "y"},
		{"grant", "--person", "a0001", "--sees", "floor", "--from", "yesterday", "--by", "x", "--reason", "y"},
		{"revoke", "--person", "a0001"},
		{"frob"},
	} {
		if code, _, errOut := runCLI(t, append(append([]string{"access"}, bad...), "--db", db.AppDSN)...); code != 2 {
			t.Errorf("access %s: exit %d, want 2\n%s", strings.Join(bad, " "), code, errOut)
		}
	}
	var rows int
	if err := db.Conn(t).QueryRow(context.Background(), "SELECT count(*) FROM plumbline.reach").Scan(&rows); err != nil || rows != 3 {
		t.Errorf("rows after the bad calls: %d, %v; want the 3 granted", rows, err)
	}
}

// serve takes floor or none as the default reach, and teaches the choices
// before it connects anywhere.
func TestDefaultReachFlag(t *testing.T) {
	code, _, errOut := runCLI(t, "serve", "--db", "postgres://nowhere.invalid/x", "--default-reach", "team")
	if code != 2 || !strings.Contains(errOut, "default-reach") || !strings.Contains(errOut, "floor, none") {
		t.Errorf("--default-reach team: exit %d\n%s", code, errOut)
	}
}
