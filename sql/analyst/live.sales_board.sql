-- Relation: live.sales_board
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: the live board, one row per sale an agent posts, with its time.
--      Agent key, time and count only.

GRANT USAGE ON SCHEMA live TO {{analyst}};
GRANT SELECT ON live.sales_board TO {{analyst}};
