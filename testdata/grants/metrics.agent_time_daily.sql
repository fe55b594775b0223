-- Relation: metrics.agent_time_daily
-- Grain: agent
-- Review: Sam Okafor, 2026-10-28: hours reports need logged, available and talk hours per agent-day.

GRANT SELECT ON metrics.agent_time_daily TO plumbline_reader;
