-- Relation: metrics.agent_time_daily
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: logged, available and talk hours per agent per day: the hours report.
--      Figures only.

GRANT USAGE ON SCHEMA metrics TO {{reader}};
GRANT SELECT ON metrics.agent_time_daily TO {{reader}};
