-- Relation: metrics.agent_quality_daily
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform; Sam Whitfield, compliance
-- Reviewed on: 2026-12-01
-- Why: audits passed and failed per agent per day. Counts only;
--      transcripts and recordings stay in the CRM and are never granted.

GRANT USAGE ON SCHEMA metrics TO {{analyst}};
GRANT SELECT ON metrics.agent_quality_daily TO {{analyst}};
