package terminal_test

import (
	"bytes"
	"strings"
	"testing"

	"plumbline/internal/terminal"
)

// Candidates print under a line that says whether the name matched several
// or matched none and these are close to it; a refusal prints as its
// sentence.
func TestCandidatesSayWhy(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"request_id":"r","argument":"who.agent","candidates":[{"agent_key":"a1","name":"Tom Becker"}],
			"notes":["No agent has that name, but these names are close to it, the closest first, so no figures are returned."],"catalog_version":"v"}`,
			"None matches; these names are close. No figures. Candidates:"},
		{`{"request_id":"r","argument":"who.agent","candidates":[{"agent_key":"a1","name":"Maria Lopez"},{"agent_key":"a2","name":"Maria Lopes"}],
			"notes":["Several agents match, so no figures are returned."],"catalog_version":"v"}`,
			"Several match; no figures. Candidates:"},
	} {
		var out, errOut bytes.Buffer
		if err := terminal.Answer([]byte(tc.body), &out, &errOut); err != nil || !strings.HasPrefix(out.String(), tc.want) {
			t.Errorf("%v: printed\n%s", err, out.String())
		}
	}
	var out, errOut bytes.Buffer
	terminal.Answer([]byte(`{"request_id":"r","error":{"code":"busy","rule":"The server is busy; try again in a few seconds.","choices":[]}}`), &out, &errOut)
	if got := errOut.String(); got != "refused (busy): The server is busy; try again in a few seconds.\n" {
		t.Errorf("a refusal without an argument prints %q", got)
	}
}
