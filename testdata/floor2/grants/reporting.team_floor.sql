-- Relation: reporting.team_floor
-- Grain: team
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: whether each team's calls count as sales, by date range, with who
--      decided and why: which teams are the floor on a day.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.team_floor TO {{reader}};
