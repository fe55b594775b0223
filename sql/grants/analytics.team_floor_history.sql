-- Relation: analytics.team_floor_history
-- Grain: team
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: which teams count as the sales floor from which day, who decided and
--      why. Decides what the floor is on each day; no person-level data
--      beyond the decider's name.

GRANT USAGE ON SCHEMA analytics TO {{reader}};
GRANT SELECT ON analytics.team_floor_history TO {{reader}};
