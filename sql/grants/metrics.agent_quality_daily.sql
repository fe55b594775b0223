-- Relation: metrics.agent_quality_daily
-- Grain: agent
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-02
-- Why: call-quality audits passed and failed per agent per day: the quality
--      report. Counts only; transcripts and recordings stay in the CRM and
--      are never granted.

GRANT USAGE ON SCHEMA metrics TO {{reader}};
GRANT SELECT ON metrics.agent_quality_daily TO {{reader}};
