package catalog_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"plumbline/catalog"
)

// The two catalogues of testdata/diff differ as their comments say: talk
// share redefined over available hours, close rate reworded, lost replaced
// by conversations; submitted sales unchanged.
func TestDiff(t *testing.T) {
	old, err := catalog.LoadDir("../testdata/diff/old")
	if err != nil {
		t.Fatal(err)
	}
	cur, err := catalog.LoadDir("../testdata/diff/new")
	if err != nil {
		t.Fatal(err)
	}
	d := catalog.Diff(old, cur)
	var changed []string
	for _, c := range d.Changed {
		if c.Old != must(old.Metric(c.ID)) || c.New != must(cur.Metric(c.ID)) {
			t.Errorf("%s: the change does not hold the two catalogues' metrics", c.ID)
		}
		changed = append(changed, c.ID+": "+strings.Join(c.What(), ", "))
	}
	want := []string{"close_rate: definition changed", "talk_share: definition changed, formula changed"}
	if !slices.Equal(changed, want) {
		t.Errorf("changed %q, want %q", changed, want)
	}
	if ids := idsOf(d.Added); !slices.Equal(ids, []string{"conversations"}) {
		t.Errorf("added %q, want [conversations]", ids)
	}
	if ids := idsOf(d.Removed); !slices.Equal(ids, []string{"lost"}) {
		t.Errorf("removed %q, want [lost]", ids)
	}
	if d.Empty() {
		t.Error("a diff with changes says it is empty")
	}
	if same := catalog.Diff(cur, cur); !same.Empty() {
		t.Errorf("a catalogue against itself: %+v", same)
	}
}

// A metric whose unit alone changes is listed as changed, and says so.
func TestDiffUnit(t *testing.T) {
	fsys := fstest.MapFS{}
	for _, name := range []string{"floor.yaml", "metrics.yaml"} {
		body, err := os.ReadFile("../testdata/diff/old/" + name)
		if err != nil {
			t.Fatal(err)
		}
		fsys[name] = &fstest.MapFile{Data: body}
	}
	old, err := catalog.Load(fsys, "old")
	if err != nil {
		t.Fatal(err)
	}
	body := string(fsys["metrics.yaml"].Data)
	changed := strings.Replace(body, "label: Conversations lost\n    unit: count", "label: Conversations lost\n    unit: hours", 1)
	if changed == body {
		t.Fatal("the old catalogue no longer counts lost conversations; fix the test")
	}
	fsys["metrics.yaml"] = &fstest.MapFile{Data: []byte(changed)}
	cur, err := catalog.Load(fsys, "new")
	if err != nil {
		t.Fatal(err)
	}
	d := catalog.Diff(old, cur)
	if len(d.Changed) != 1 || d.Changed[0].ID != "lost" || !slices.Equal(d.Changed[0].What(), []string{"unit changed"}) ||
		len(d.Added)+len(d.Removed) != 0 {
		t.Errorf("only the unit of lost changed, yet the diff is %+v", d)
	}
}

func must[T any](v T, ok bool) T {
	if !ok {
		panic("missing")
	}
	return v
}

func idsOf(ms []*catalog.Metric) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}
