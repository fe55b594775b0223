package contract_test

import (
	"testing"

	"plumbline/catalog"
	"plumbline/internal/contract"
	"plumbline/reports"
)

// Every tool the engine offers reaches a client titled, described and
// with its output schema, in the engine's order.
func TestEveryToolIsDescribed(t *testing.T) {
	cat, err := catalog.Demo()
	if err != nil {
		t.Fatal(err)
	}
	e := reports.New(cat, nil, nil)
	tools := contract.Tools(e)
	names := e.ToolNames()
	if len(tools) != len(names) {
		t.Fatalf("%d tools, the engine offers %d", len(tools), len(names))
	}
	for i, tool := range tools {
		if tool.Name != names[i] || tool.Title == "" || tool.Description == "" || tool.OutputSchema == nil || tool.InputSchema == nil {
			t.Errorf("tool %d: %s (%q) is not the engine's %s, or lacks a title, description or schema", i, tool.Name, tool.Title, names[i])
		}
	}
}
