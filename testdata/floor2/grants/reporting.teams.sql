-- Relation: reporting.teams
-- Grain: team
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: the team list: code and name. Names the teams in answers.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.teams TO {{reader}};
