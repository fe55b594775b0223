// Package chartview holds plumbline's MCP Apps view (the io.modelcontextprotocol/ui
// extension): one self-contained HTML page that draws a report's answer as
// charts, with every definition, data_through, the period, the counting basis
// and the notes stated beneath, and says which tools it draws.
//
// The page is built from src/ by `make views` (esbuild, with the extension's
// official ext-apps package bundled in) and the result, dist/view.html, is
// committed and embedded, so building plumbline needs no Node. Its resource
// URI carries a hash of its content: a new build is a new URI, so a host may
// cache a view for as long as it likes.
package chartview
