package snapshot_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"plumbline/catalog"
	"plumbline/internal/contract"
	"plumbline/internal/snapshot"
	"plumbline/reports"
)

func demo(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Of(contract.Tools(reports.New(cat, nil, nil)), contract.Instructions())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// edit returns a copy of s changed by f on its decoded JSON.
func edit(t *testing.T, s *snapshot.Snapshot, f func(tools map[string]map[string]any, doc map[string]any)) *snapshot.Snapshot {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(s.JSON(), &doc); err != nil {
		t.Fatal(err)
	}
	tools := map[string]map[string]any{}
	for _, x := range doc["tools"].([]any) {
		tool := x.(map[string]any)
		tools[tool["name"].(string)] = tool
	}
	f(tools, doc)
	b, _ := json.Marshal(doc)
	out, err := snapshot.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func props(schema any) map[string]any {
	return schema.(map[string]any)["properties"].(map[string]any)
}

// answerProps are the properties of an output schema's answer: the shape
// titled "answer" among the ones a tool answers with.
func answerProps(schema any) map[string]any {
	for _, v := range schema.(map[string]any)["anyOf"].([]any) {
		if v.(map[string]any)["title"] == "answer" {
			return props(v)
		}
	}
	panic("no answer shape")
}

func TestSnapshotIsDeterministic(t *testing.T) {
	a, b := demo(t), demo(t)
	if !bytes.Equal(a.JSON(), b.JSON()) {
		t.Fatal("two snapshots of one catalogue differ")
	}
	back, err := snapshot.Parse(a.JSON())
	if err != nil || !bytes.Equal(back.JSON(), a.JSON()) {
		t.Fatalf("a snapshot does not survive being written and read: %v", err)
	}
	if cs := snapshot.Compare(a, back); len(cs) != 0 {
		t.Errorf("a snapshot differs from itself: %v", cs)
	}
	names := make([]string, len(a.Tools))
	for i, tool := range a.Tools {
		names[i] = tool.Name
	}
	if !slices.IsSorted(names) || !slices.Contains(names, "sales") || a.Instructions == "" {
		t.Errorf("tools %v, instructions %d bytes", names, len(a.Instructions))
	}
	if _, err := snapshot.Parse([]byte(`{"tools": [], "extra": 1}`)); err == nil {
		t.Error("a file with unknown fields is taken for a snapshot")
	}
}

// Changes a catalogue cannot make (the output schema and the grammar are
// plumbline's) still have to be judged right when plumbline itself changes.
func TestCompareSchemaChanges(t *testing.T) {
	old := demo(t)
	for _, tc := range []struct {
		name     string
		edit     func(tools map[string]map[string]any, doc map[string]any)
		breaking []string
		additive []string
	}{
		{
			name: "a newly required argument",
			edit: func(tools map[string]map[string]any, _ map[string]any) {
				in := tools["hours"]["input_schema"].(map[string]any)
				in["required"] = append(in["required"].([]any), "group_by")
			},
			breaking: []string{`hours input: "group_by" is newly required: calls that leave it out are refused`},
		},
		{
			name: "a removed output field",
			edit: func(tools map[string]map[string]any, _ map[string]any) {
				delete(answerProps(tools["sales"]["output_schema"]), "partial_metrics")
			},
			breaking: []string{"sales output(answer).partial_metrics: the output field was removed: clients that read it find nothing"},
		},
		{
			name: "a retyped argument and a tighter bound",
			edit: func(tools map[string]map[string]any, _ map[string]any) {
				in := props(tools["quality"]["input_schema"])
				in["top_n"].(map[string]any)["maximum"] = 10.0
				in["compact"].(map[string]any)["type"] = "string"
			},
			breaking: []string{
				`quality input.compact: the type changed from "boolean" to "string"`,
				"quality input.top_n: maximum narrowed from 50 to 10",
			},
		},
		{
			name: "a form of who dropped, a period shape narrowed",
			edit: func(tools map[string]map[string]any, _ map[string]any) {
				in := props(tools["hours"]["input_schema"])
				delete(props(in["who"]), "agent")
				in["period"].(map[string]any)["anyOf"].([]any)[3].(map[string]any)["maxProperties"] = 1.0
			},
			breaking: []string{
				"hours input.period(3): maxProperties narrowed from 2 to 1",
				"hours input.who.agent: the argument was removed: calls that send it are refused",
			},
		},
		{
			name: "new output field, new optional argument, looser bound, new instructions",
			edit: func(tools map[string]map[string]any, doc map[string]any) {
				answerProps(tools["sales"]["output_schema"])["league"] = map[string]any{"type": "object"}
				props(tools["sales"]["input_schema"])["team_size"] = map[string]any{"type": "boolean"}
				props(tools["hours"]["input_schema"])["top_n"].(map[string]any)["maximum"] = 100.0
				doc["instructions"] = doc["instructions"].(string) + " Be brief."
			},
			additive: []string{
				"the server instructions changed",
				"hours input.top_n: maximum widened from 50 to 100",
				"sales input.team_size: a new optional argument",
				"sales output(answer).league: a new output field",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var breaking, additive []string
			for _, c := range snapshot.Compare(old, edit(t, old, tc.edit)) {
				if c.Breaking {
					breaking = append(breaking, c.String())
				} else {
					additive = append(additive, c.String())
				}
			}
			if strings.Join(breaking, "\n") != strings.Join(tc.breaking, "\n") {
				t.Errorf("breaking:\n%s\nwant:\n%s", strings.Join(breaking, "\n"), strings.Join(tc.breaking, "\n"))
			}
			if strings.Join(additive, "\n") != strings.Join(tc.additive, "\n") {
				t.Errorf("additive:\n%s\nwant:\n%s", strings.Join(additive, "\n"), strings.Join(tc.additive, "\n"))
			}
		})
	}
}
