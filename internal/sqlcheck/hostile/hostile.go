package hostile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// What the database alone does with a statement, run as the analyst role.
const (
	Refused   = "refused"   // it raises one of the statement's SQLStates
	Slow      = "slow"      // only slow: the statement timeout ends it
	Contained = "contained" // every role may; it reveals no member data and outlasts no rollback
)

// Statement is one hostile statement.
type Statement struct {
	Name     string
	SQL      string
	Check    string   // the sqlcheck check that refuses it
	Role     string   // Refused, Slow or Contained
	SQLState []string // for Refused: the SQLSTATEs PostgreSQL may answer with
}

// Load reads the corpus, failing the test if it cannot.
func Load(t testing.TB) []Statement {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	body, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "analyst", "hostile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var raw []struct {
		Name, SQL, Check, Role, Repeat, Suffix string
		Times                                  int
		SQLState                               []string `yaml:"sqlstate"`
	}
	dec := yaml.NewDecoder(strings.NewReader(string(body)))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		t.Fatalf("testdata/analyst/hostile.yaml: %v", err)
	}
	out := make([]Statement, len(raw))
	for i, r := range raw {
		out[i] = Statement{Name: r.Name, SQL: r.SQL + strings.Repeat(r.Repeat, r.Times) + r.Suffix, Check: r.Check,
			Role: r.Role, SQLState: r.SQLState}
	}
	return out
}
