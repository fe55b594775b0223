package mcpserver

import (
	"plumbline/internal/contract"
	"plumbline/internal/scrub"
	"plumbline/reports"
)

// Text block modes (Options.TextContent).
const (
	// TextReader sends each answer rendered for a model to read
	// (contract.Text): every figure, definition or reference, stamp
	// and note of the structured content, in far fewer bytes.
	TextReader = "reader"
	// TextJSON sends the structured content's JSON as the text block too,
	// as the MCP guidance has it (a tool that returns structured content
	// SHOULD also return it serialized in a text block), for clients that
	// parse the text block.
	TextJSON = "json"
)

// TextModes lists the text block modes.
var TextModes = []string{TextReader, TextJSON}

// textFor is an answer's text block: its rendering for a model, scrubbed
// as the structured content is, or its JSON body.
func textFor(engine *reports.Engine, o Options, ans *reports.Answer, body []byte) string {
	if o.TextContent == TextJSON {
		return string(body)
	}
	keep := []string{ans.RequestID, engine.Catalog().Version()}
	text, ok := contract.Text(engine, ans, func(s string) string { return scrub.String(s, keep...) })
	if !ok {
		return string(body)
	}
	return text
}
