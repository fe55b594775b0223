-- Relation: analytics.team_floor_history
-- Grain: team
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: which teams count as the sales floor from which day, who decided
--      and why, so the analyst agent counts the floor as the reports do.

GRANT USAGE ON SCHEMA analytics TO {{analyst}};
GRANT SELECT ON analytics.team_floor_history TO {{analyst}};
