-- Relation: reporting.targets
-- Grain: team
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: the sales goals per team and week or month, with who set them,
--      when and why: attainment in the sales report and the league.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.targets TO {{reader}};
