-- Relation: analytics.dim_agent
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: the agent dimension: key, name, work email, hire and leave dates of
--      floor staff. Resolves who a manager asks about and names agents in
--      answers; holds no member data.

GRANT USAGE ON SCHEMA analytics TO {{reader}};
GRANT SELECT ON analytics.dim_agent TO {{reader}};
