-- Relation: reporting.agent_hours_daily
-- Grain: agent
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: clocked-in, ready and talk hours per employee per New York day,
--      summed from the phone system's shifts: the hours report. Hours only.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.agent_hours_daily TO {{reader}};
