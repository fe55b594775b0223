-- Relation: live.sales_board
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: the live sales board, one row per sale a rep posts, with its time: the
--      board basis of the sales report. Agent key, time and count only.

GRANT USAGE ON SCHEMA live TO {{reader}};
GRANT SELECT ON live.sales_board TO {{reader}};
