-- Relation: analytics.agent_team_history
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: which team each agent is on from which day, so an agent-day counts for
--      the team of that day. Keys and dates only.

GRANT USAGE ON SCHEMA analytics TO {{reader}};
GRANT SELECT ON analytics.agent_team_history TO {{reader}};
