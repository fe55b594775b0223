-- Relation: metrics.agent_sales_daily
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: applications submitted, conversations lost and carrier approvals per
--      agent per day: the sales report. Counts only, no member data.

GRANT USAGE ON SCHEMA metrics TO {{reader}};
GRANT SELECT ON metrics.agent_sales_daily TO {{reader}};
