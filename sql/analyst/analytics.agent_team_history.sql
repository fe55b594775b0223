-- Relation: analytics.agent_team_history
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: which team each agent was on from which day, so the analyst agent
--      can count an agent-day for the team of that day. Keys and dates only.

GRANT USAGE ON SCHEMA analytics TO {{analyst}};
GRANT SELECT ON analytics.agent_team_history TO {{analyst}};
