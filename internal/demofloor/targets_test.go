package demofloor_test

import (
	"context"
	"testing"

	"plumbline/internal/pgtest"
)

// The demo floor's targets, as loaded: most sales teams have a target for
// every week and month, one sales team has none, the team that never counts
// as sales has none, and one team's target for last month was revised in the
// middle of the month, both versions kept.
func TestTargetsAsLoaded(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	var weeks, months, without, revisions int
	var revisedOn string
	err := conn.QueryRow(ctx, `SELECT
		(SELECT count(DISTINCT period_start) FROM analytics.targets WHERE team_key = 'hawks' AND metric = 'submitted_sales' AND period_kind = 'week'),
		(SELECT count(DISTINCT period_start) FROM analytics.targets WHERE team_key = 'hawks' AND metric = 'close_rate' AND period_kind = 'month'),
		(SELECT count(*) FROM analytics.dim_team d WHERE NOT EXISTS (SELECT 1 FROM analytics.targets t WHERE t.team_key = d.team_key)),
		(SELECT count(*) FROM analytics.targets WHERE team_key = 'falcons' AND metric = 'submitted_sales' AND period_kind = 'month' AND period_start = '2026-10-01'),
		(SELECT to_char(max(set_at) AT TIME ZONE 'America/New_York', 'YYYY-MM-DD') FROM analytics.targets
		  WHERE team_key = 'falcons' AND metric = 'submitted_sales' AND period_kind = 'month' AND period_start = '2026-10-01')`).
		Scan(&weeks, &months, &without, &revisions, &revisedOn)
	if err != nil {
		t.Fatal(err)
	}
	if weeks != 16 || months != 4 || without != 2 || revisions != 2 || revisedOn != "2026-10-15" {
		t.Errorf("hawks: %d weekly and %d monthly targets (want 16 and 4); %d teams without any (want 2: the kestrels and retention); "+
			"the falcons' October target: %d versions, the latest set %s (want 2, on 2026-10-15)", weeks, months, without, revisions, revisedOn)
	}
}
