package members_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"plumbline/internal/members"
	"plumbline/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// store opens the directory as plumbline's login, running as the auth
// role with the real grants.
func store(t *testing.T, db *pgtest.DB) *members.Store {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), db.AppDSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return members.NewStore(pool, pgtest.Roles.Auth)
}

func write(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func importFile(t *testing.T, s *members.Store, path string) members.Report {
	t.Helper()
	rows, err := members.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	rep, err := s.Import(context.Background(), filepath.Base(path), rows, false)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return rep
}

// An import makes the directory what the export says, says what it
// changed, and changes nothing when run again; a member it no longer
// lists is deactivated and loses their tokens, one SCIM keeps is left be.
func TestImport(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	s := store(t, db)
	admin := db.Conn(t)
	if _, err := admin.Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status, kept_by) VALUES
		('a0099', 'left@floor.example', 'Left Early', 'active', NULL), ('s-1', 'scim@floor.example', 'By SCIM', 'active', 'scim');
		INSERT INTO plumbline.oauth_tokens (token_hash, kind, subject, client_id, scope, issuer, resource, expires_at)
		VALUES ('\x01', 'person', 'a0099', 'c', 'reports:read', 'i', 'r', now() + interval '1 day')`); err != nil {
		t.Fatal(err)
	}
	csv := write(t, "members.csv", "person_id,email,display_name,status\n"+
		"a0001,Dana.Okafor@floor.example,Dana Okafor,\n"+
		"a0002,ravi.shah@floor.example,Ravi Shah,locked\n")
	rep := importFile(t, s, csv)
	if !slices.Equal(rep.Added, []string{"a0001", "a0002"}) || len(rep.Changed) != 0 || !slices.Equal(rep.Deactivated, []string{"a0099"}) ||
		rep.KeptBySCIM != 1 {
		t.Errorf("first import: %+v", rep)
	}
	var live int
	admin.QueryRow(ctx, `SELECT count(*) FROM plumbline.oauth_tokens WHERE subject = 'a0099' AND revoked_at IS NULL`).Scan(&live)
	if live != 0 {
		t.Error("a deactivated member's token is live")
	}
	if again := importFile(t, s, csv); len(again.Added)+len(again.Changed)+len(again.Deactivated) != 0 || again.Unchanged != 2 {
		t.Errorf("the same file again: %+v", again)
	}

	json := write(t, "export.json", `[{"person_id":"a0001","email":"dana.okafor@floor.example","display_name":"Dana Okafor-Reyes"},
		{"person_id":"a0002","email":"ravi.shah@floor.example","display_name":"Ravi Shah","status":"active"}]`)
	if rep := importFile(t, s, json); !slices.Equal(rep.Changed, []string{"a0001", "a0002"}) || len(rep.Added)+len(rep.Deactivated) != 0 {
		t.Errorf("a JSON export: %+v", rep)
	}
	var changes int
	admin.QueryRow(ctx, `SELECT count(*) FROM plumbline.directory_changes WHERE changed_by = 'import'`).Scan(&changes)
	if changes != 5 {
		t.Errorf("%d changes on record, want 5 (2 added, 1 deactivated, 2 changed)", changes)
	}
}

// A bad row is refused with the file, the place, the column and the rule,
// never its value, and nothing is changed.
func TestImportRefusesABadRow(t *testing.T) {
	db := pgtest.NewDB(t)
	s := store(t, db)
	const header = "person_id,email,display_name,status\n"
	const good = "a0001,dana@floor.example,Dana Okafor,\n"
	for _, c := range []struct{ name, body, want string }{
		{"members.csv", header + good + "a0002,ravi-secret-at-floor,Ravi Shah,\n",
			"members.csv: line 3: email: must be one email address, user@domain, the one the person signs in with; fix the file and run the import again (nothing was changed)"},
		{"members.csv", header + good + "a0002,ravi@floor.example,Ravi Shah,on-leave-secret\n",
			"members.csv: line 3: status: must be one of active, removed, banned, locked, or empty for active"},
		{"members.csv", header + good + "a0001,ravi@floor.example,Ravi Shah,\n",
			"members.csv: line 3: person_id: is the same as line 2's; each member is listed once"},
		{"members.csv", header + good + `a0002,"DANA@floor.example",Dana Again,` + "\n",
			"members.csv: line 3: email: is the same as line 2's"},
		{"members.csv", header + good + "a0002,ravi@floor.example\n", "members.csv: line 3: has 2 fields, and the header 4"},
		{"members.csv", "id,email,display_name\n" + good, "members.csv: line 1: column 1: is not one of the columns person_id, email, display_name, status, groups"},
		{"members.csv", header + good + ",ravi@floor.example,Ravi Shah,\n", "members.csv: line 3: person_id: is empty"},
		{"members.csv", header + good + "service:x,ravi@floor.example,Ravi Shah,\n", "members.csv: line 3: person_id: must not start with service:"},
		{"export.json", `[{"person_id":"a0001","email":"dana@floor.example","display_name":"Dana"},{"person_id":"a2","mail":"x-secret@floor.example"}]`,
			"export.json: entry 2: must be an object whose keys are among person_id, email, display_name, status, groups, each a string but groups, a list of names"},
		{"export.json", `{"person_id":"a0001"}`, "export.json: must be one JSON array of objects"},
		{"members.txt", good, "members.txt: an export is a .csv file with a header row or a .json array of objects"},
	} {
		_, err := members.ReadFile(write(t, c.name, c.body))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %q:\n got %v\nwant %s", c.name, c.body, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the refusal repeats a value: %v", err)
		}
	}

	// An address another member has, whom the file does not list under
	// that id, is refused at the row, and the rows before it are undone.
	ctx := context.Background()
	if _, err := db.Conn(t).Exec(ctx, `INSERT INTO plumbline.members (person_id, email, display_name, status) VALUES ('a0050', 'taken@floor.example', 'T', 'active')`); err != nil {
		t.Fatal(err)
	}
	rows, err := members.ReadFile(write(t, "members.csv", header+good+"a0002,Taken@floor.example,Ravi Shah,\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Import(ctx, "members.csv", rows, false)
	if err == nil || err.Error() != "members.csv: line 3: email: another member, whom the file does not list under this person_id, already has this address; "+
		"fix the file and run the import again (nothing was changed)" {
		t.Errorf("a taken address: %v", err)
	}
	var n int
	db.Conn(t).QueryRow(ctx, `SELECT count(*) FROM plumbline.members`).Scan(&n)
	if n != 1 {
		t.Errorf("a refused import changed the directory: %d members", n)
	}
}

// An export with groups puts each member it lists in exactly the groups
// it names (made when no group has the name yet, matched whatever the
// case); one without them leaves the groups as they are.
func TestImportGroups(t *testing.T) {
	ctx := context.Background()
	db := pgtest.NewDB(t)
	s := store(t, db)
	groupsOf := func(person string) string {
		var names string
		db.Conn(t).QueryRow(ctx, `SELECT coalesce(string_agg(g.display_name, ';' ORDER BY g.display_name), '') FROM plumbline.group_members gm
			JOIN plumbline.groups g USING (group_id) WHERE gm.person_id = $1`, person).Scan(&names)
		return names
	}
	first := write(t, "members.csv", "person_id,email,display_name,groups\n"+
		"a0001,dana@floor.example,Dana Okafor,Hawks leads; Floor managers\n"+
		"a0002,ravi@floor.example,Ravi Shah,hawks LEADS\n")
	if rep := importFile(t, s, first); len(rep.Added) != 2 || groupsOf("a0001") != "Floor managers;Hawks leads" || groupsOf("a0002") != "Hawks leads" {
		t.Errorf("first import: %+v, %q, %q", rep, groupsOf("a0001"), groupsOf("a0002"))
	}
	if rep := importFile(t, s, first); rep.Unchanged != 2 {
		t.Errorf("the same file again: %+v", rep)
	}
	moved := write(t, "members.json", `[{"person_id":"a0001","email":"dana@floor.example","display_name":"Dana Okafor","groups":["Floor managers"]},
		{"person_id":"a0002","email":"ravi@floor.example","display_name":"Ravi Shah"}]`)
	if rep := importFile(t, s, moved); !slices.Equal(rep.Changed, []string{"a0001"}) || groupsOf("a0001") != "Floor managers" ||
		groupsOf("a0002") != "Hawks leads" {
		t.Errorf("a member moved, another's groups left be: %+v, %q, %q", rep, groupsOf("a0001"), groupsOf("a0002"))
	}
}
