WITH team_spans AS (SELECT h."agent_key" AS agent, h."team_key" AS team, h."effective_from" AS since, lead(h."effective_from") OVER (PARTITION BY h."agent_key" ORDER BY h."effective_from") AS until FROM "analytics"."agent_team_history" h), keys AS (SELECT to_char(d, 'YYYY-MM-DD') AS k FROM generate_series($1::date, $2::date, '7 days'::interval) d), facts AS (SELECT s."agent_key" AS agent, s."day" AS day, ((s."audits_passed" + s."audits_failed"))::numeric AS p0, (s."audits_passed")::numeric AS p1, ((s."audits_passed" + s."audits_failed"))::numeric AS p2 FROM "metrics"."agent_quality_daily" s WHERE s."day" BETWEEN $3 AND $4) SELECT keys.k, g.p0, g.p1, g.p2 FROM keys LEFT JOIN ( SELECT sum(x.p0)::float8 AS p0, sum(x.p1)::float8 AS p1, sum(x.p2)::float8 AS p2, (to_char(x.day - ((extract(isodow FROM x.day)::int + 7 - $5) % 7), 'YYYY-MM-DD')) AS k FROM facts x JOIN team_spans t ON t.agent = x.agent AND x.day >= t.since AND (t.until IS NULL OR x.day < t.until) WHERE t.team = $6 GROUP BY k ) g ON g.k = keys.k ORDER BY 1 LIMIT 51
-- $1 = 2026-10-19T00:00:00Z
-- $2 = 2026-11-15T00:00:00Z
-- $3 = 2026-10-19T00:00:00Z
-- $4 = 2026-11-15T00:00:00Z
-- $5 = 1
-- $6 = falcons
