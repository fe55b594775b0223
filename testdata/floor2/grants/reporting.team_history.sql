-- Relation: reporting.team_history
-- Grain: agent
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: each employee's team by date range, from HR: which team an
--      agent-day counts for. Ids, team codes and dates only.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.team_history TO {{reader}};
