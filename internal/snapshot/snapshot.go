package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"plumbline/internal/contract"
)

// Snapshot is the contract as clients see it.
type Snapshot struct {
	Instructions string `json:"instructions"`
	Tools        []Tool `json:"tools"`
}

// Tool is one tool of a snapshot. Schemas are held as decoded JSON, so a
// snapshot read from a file and one taken from an engine compare alike.
type Tool struct {
	Name         string `json:"name"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	InputSchema  any    `json:"input_schema"`
	OutputSchema any    `json:"output_schema"`
}

// Of takes the snapshot of an engine's tools and the server instructions.
func Of(tools []contract.Tool, instructions string) (*Snapshot, error) {
	s := &Snapshot{Instructions: instructions, Tools: []Tool{}}
	for _, t := range tools {
		in, err := normalize(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.Name, err)
		}
		out, err := normalize(t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: output schema: %w", t.Name, err)
		}
		s.Tools = append(s.Tools, Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: in, OutputSchema: out})
	}
	slices.SortFunc(s.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// normalize turns a schema into plain decoded JSON (maps, []any, float64).
func normalize(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(b, &out)
}

// JSON writes the snapshot deterministically: tools by name, object keys
// sorted, indented, with a final newline, so that a committed snapshot
// changes only when the contract does.
func (s *Snapshot) JSON() []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		panic(err) // a snapshot holds only decoded JSON; it always encodes
	}
	return b.Bytes()
}

// Parse reads a snapshot written by JSON.
func Parse(data []byte) (*Snapshot, error) {
	var s Snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("not a plumbline contract snapshot: %w", err)
	}
	return &s, nil
}

func (s *Snapshot) tool(name string) (Tool, bool) {
	for _, t := range s.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}
