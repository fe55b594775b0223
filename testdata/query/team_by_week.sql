WITH spans AS (SELECT t.agent, t.team, t.since, t.until FROM (SELECT h."agent_key" AS agent, h."team_key" AS team, h."effective_from" AS since, lead(h."effective_from") OVER (PARTITION BY h."agent_key" ORDER BY h."effective_from") AS until FROM "analytics"."agent_team_history" h WHERE h."agent_key" IN (SELECT e."agent_key" FROM "analytics"."agent_team_history" e WHERE e."team_key" = $1)) AS t WHERE t.team = $2), keys AS (SELECT to_char(d, 'YYYY-MM-DD') AS k FROM generate_series($3::date, $4::date, '7 days'::interval) d), facts AS (SELECT s."agent_key" AS agent, (s."day") AS day, ((s."audits_passed" + s."audits_failed")) AS p0, (s."audits_passed") AS p1, ((s."audits_passed" + s."audits_failed")) AS p2, 1 AS k0, 0 AS l0, 1 AS k1, 0 AS l1 FROM "plumbline_seen"."agent_quality_daily" s WHERE s."day" BETWEEN $5 AND $6 AND s."day" <= (SELECT max(l."covers_day") FROM "metrics"."load_runs" l WHERE l."relation" = $7 AND l."finished_at" IS NOT NULL)) SELECT keys.k, g.p0, g.p1, g.p2, g.k0, g.l0, g.k1, g.l1, g.lt0, g.lt1 FROM keys LEFT JOIN ( SELECT sum(x.p0)::float8 AS p0, sum(x.p1)::float8 AS p1, sum(x.p2)::float8 AS p2, sum(x.k0)::int8 AS k0, sum(x.l0)::int8 AS l0, sum(x.k1)::int8 AS k1, sum(x.l1)::int8 AS l1, (sum(sum(x.l0)) OVER ())::int8 AS lt0, (sum(sum(x.l1)) OVER ())::int8 AS lt1, (to_char(x.day - ((extract(isodow FROM x.day)::int + 7 - $8) % 7), 'YYYY-MM-DD')) AS k FROM facts x JOIN spans t ON t.agent = x.agent AND x.day >= t.since AND (t.until IS NULL OR x.day < t.until) GROUP BY k ) g ON g.k = keys.k ORDER BY keys.k COLLATE "C" LIMIT 51
-- $1 = falcons
-- $2 = falcons
-- $3 = 2026-10-19T00:00:00Z
-- $4 = 2026-11-15T00:00:00Z
-- $5 = 2026-10-19T00:00:00Z
-- $6 = 2026-11-15T00:00:00Z
-- $7 = metrics.agent_quality_daily
-- $8 = 1
