-- Relation: reporting.teams
-- Grain: team
-- Reviewed by: Femi Adeyemi, data platform; Rosa Lind, compliance
-- Reviewed on: 2026-03-02
-- Why: the team list: code and name. Names the teams in answers.

GRANT USAGE ON SCHEMA reporting TO {{analyst}};
GRANT SELECT ON reporting.teams TO {{analyst}};
