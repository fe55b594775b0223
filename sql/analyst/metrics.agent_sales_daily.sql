-- Relation: metrics.agent_sales_daily
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: applications submitted, conversations lost and carrier approvals
--      per agent per day. Counts only, no member data.

GRANT USAGE ON SCHEMA metrics TO {{analyst}};
GRANT SELECT ON metrics.agent_sales_daily TO {{analyst}};
