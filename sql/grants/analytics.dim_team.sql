-- Relation: analytics.dim_team
-- Grain: team
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: the team dimension: key, display name and lead agent. Names the teams
--      in every answer; holds no member data.

GRANT USAGE ON SCHEMA analytics TO {{reader}};
GRANT SELECT ON analytics.dim_team TO {{reader}};
