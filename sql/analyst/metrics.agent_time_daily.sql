-- Relation: metrics.agent_time_daily
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: logged, available and talk hours per agent per day. Figures
--      only.

GRANT USAGE ON SCHEMA metrics TO {{analyst}};
GRANT SELECT ON metrics.agent_time_daily TO {{analyst}};
