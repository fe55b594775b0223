-- Relation: analytics.dim_team
-- Grain: team
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: the team dimension: key, display name and lead agent, to name teams.
--      No member data.

GRANT USAGE ON SCHEMA analytics TO {{analyst}};
GRANT SELECT ON analytics.dim_team TO {{analyst}};
