-- Relation: reporting.loads
-- Grain: pipeline
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: the ETL scheduler's runs: job, the day a run covered, when it
--      finished if it succeeded. How far each nightly source is loaded;
--      no member or staff data.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.loads TO {{reader}};
