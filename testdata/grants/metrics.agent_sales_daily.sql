-- relation: metrics.agent_sales_daily
-- grain: agent (one row per agent per day)
-- reviewed-by: Dana Whitfield (data protection)
-- reviewed-on: 2026-10-30
-- why: the sales reports sum submitted, lost and approved applications;
--   the relation holds counts only, no member data.
GRANT SELECT ON metrics.agent_sales_daily TO plumbline_reader;
