-- Relation: reporting.agent_sales_daily
-- Grain: agent
-- Reviewed by: Femi Adeyemi, data platform; Rosa Lind, compliance
-- Reviewed on: 2026-03-02
-- Why: applications submitted and approved and conversations lost per
--      employee per New York day, counted from the CRM: the sales report.
--      Counts only, no member data.

GRANT USAGE ON SCHEMA reporting TO {{analyst}};
GRANT SELECT ON reporting.agent_sales_daily TO {{analyst}};
