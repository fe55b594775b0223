-- Relation: reporting.agents
-- Grain: agent
-- Reviewed by: Femi Adeyemi, data platform
-- Reviewed on: 2026-03-02
-- Why: floor staff from HR: employee id, name, work email, hire and
--      termination dates. Resolves who a manager asks about; no home phone,
--      no member data.

GRANT USAGE ON SCHEMA reporting TO {{reader}};
GRANT SELECT ON reporting.agents TO {{reader}};
