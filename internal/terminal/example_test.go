package terminal_test

import (
	"os"

	"plumbline/internal/terminal"
)

// An answer prints as its table, numbers to the right and null as null,
// with what the figures mean beneath; a refusal prints as its rule and
// choices.
func ExampleAnswer() {
	answer := `{"request_id": "r1", "columns": ["team", "submitted_sales"], "rows": [["falcons", 41], ["owls", null]],
		"truncated": false, "request": {"tool": "sales", "who": {"kind": "floor", "name": "the floor"}, "metrics": ["submitted_sales"]},
		"metrics": {"submitted_sales": {"label": "Applications submitted", "unit": "count", "sales_basis": "submitted",
			"definition": "Applications submitted in the CRM, as counted by the nightly build.",
			"formula": "sum(submitted)", "source": "metrics.agent_sales_daily",
			"data_through": {"runs_to": "2026-11-29", "complete_through": "2026-11-29"}}},
		"period": {"start": "2026-11-23", "end": "2026-11-29", "days": 7, "time_zone": "America/New_York", "named": "last_week"},
		"data_through": {}, "notes": ["owls logged no sales last week."], "partial": false, "partial_metrics": [],
		"catalog_version": "811a710b668098be"}`
	terminal.Answer([]byte(answer), os.Stdout, os.Stdout)
	refusal := `{"request_id": "r2", "error": {"code": "invalid_argument", "argument": "group_by", "rule": "must be one of the choices",
		"choices": ["team", "agent", "day", "week"]}}`
	terminal.Answer([]byte(refusal), os.Stdout, os.Stdout)
	// Output:
	// team     submitted_sales
	// -------  ---------------
	// falcons               41
	// owls                null
	//
	// Period: 2026-11-23 to 2026-11-29 (7 days, America/New_York), last_week
	// Who: the floor
	//
	// Definitions:
	//   submitted_sales: Applications submitted (count, submitted basis)
	//     Applications submitted in the CRM, as counted by the nightly build.
	//     formula: sum(submitted), from metrics.agent_sales_daily
	//     data runs to 2026-11-29, complete through 2026-11-29
	//
	// Notes:
	//   - owls logged no sales last week.
	//
	// catalog_version 811a710b668098be
	// refused (invalid_argument): group_by must be one of the choices
	//   choices: team, agent, day, week
}
