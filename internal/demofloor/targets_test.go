package demofloor_test

import (
	"context"
	"testing"

	"plumbline/internal/pgtest"
)

// The demo floor's targets, as loaded, can tell rules apart: a team's
// weekly target differs from one week to the next, targets are revised
// after they were set (in the middle of a month and of a week), the team
// that joins the floor on a Thursday has a target for that week, a team
// has no target for last week, the rate has no weekly target, and the team
// that never counts as sales has none at all.
func TestTargetsAsLoaded(t *testing.T) {
	db := pgtest.NewDB(t)
	conn := db.Conn(t)
	ctx := context.Background()
	var weeks, values, months, rateWeeks, without, monthRevisions, weekRevisions, joinWeek, lastWeek int
	var revisedOn string
	err := conn.QueryRow(ctx, `WITH latest AS (SELECT DISTINCT ON (team_key, metric, period_kind, period_start) *
		  FROM analytics.targets ORDER BY team_key, metric, period_kind, period_start, set_at DESC)
		SELECT
		(SELECT count(*) FROM latest WHERE team_key = 'hawks' AND metric = 'submitted_sales' AND period_kind = 'week'),
		(SELECT count(DISTINCT value) FROM latest WHERE team_key = 'hawks' AND metric = 'submitted_sales' AND period_kind = 'week'),
		(SELECT count(*) FROM latest WHERE team_key = 'hawks' AND metric = 'close_rate' AND period_kind = 'month'),
		(SELECT count(*) FROM latest WHERE metric = 'close_rate' AND period_kind = 'week'),
		(SELECT count(*) FROM analytics.dim_team d WHERE NOT EXISTS (SELECT 1 FROM analytics.targets t WHERE t.team_key = d.team_key)),
		(SELECT count(*) FROM analytics.targets WHERE team_key = 'falcons' AND metric = 'submitted_sales' AND period_kind = 'month' AND period_start = '2026-10-01'),
		(SELECT to_char(max(set_at) AT TIME ZONE 'America/New_York', 'YYYY-MM-DD') FROM analytics.targets
		  WHERE team_key = 'falcons' AND metric = 'submitted_sales' AND period_kind = 'month' AND period_start = '2026-10-01'),
		(SELECT count(*) FROM analytics.targets t WHERE period_kind = 'week'
		  AND (set_at AT TIME ZONE 'America/New_York')::date BETWEEN period_start AND period_start + 6),
		(SELECT count(*) FROM latest WHERE team_key = 'kestrels' AND period_kind = 'week' AND period_start = '2026-09-21'),
		(SELECT count(*) FROM latest WHERE team_key = 'kestrels' AND period_kind = 'week' AND period_start = '2026-11-09')`).
		Scan(&weeks, &values, &months, &rateWeeks, &without, &monthRevisions, &revisedOn, &weekRevisions, &joinWeek, &lastWeek)
	if err != nil {
		t.Fatal(err)
	}
	if weeks != 16 || values < 4 || months != 4 || rateWeeks != 0 || without != 1 {
		t.Errorf("hawks: %d weekly targets over %d values (want 16 over at least 4), %d monthly close rates (want 4); "+
			"%d weekly close rates (want 0); %d teams without any (want 1: retention)", weeks, values, months, rateWeeks, without)
	}
	if monthRevisions != 2 || revisedOn != "2026-10-15" || weekRevisions < 2 {
		t.Errorf("the falcons' October target: %d versions, the latest set %s (want 2, on 2026-10-15); %d weekly targets revised inside "+
			"their week (want at least 2)", monthRevisions, revisedOn, weekRevisions)
	}
	if joinWeek != 1 || lastWeek != 0 {
		t.Errorf("the kestrels: %d targets for the week they joined the floor (want 1), %d for last week (want 0)", joinWeek, lastWeek)
	}
}
