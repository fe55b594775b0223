-- Relation: analytics.dim_agent
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: the agent dimension without the work email: key, name, hire and
--      leave dates. The analyst agent has no need of emails; no member data.

GRANT USAGE ON SCHEMA analytics TO {{analyst}};
GRANT SELECT (agent_key, full_name, hired_on, left_on) ON analytics.dim_agent TO {{analyst}};
