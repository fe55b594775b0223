-- Relation: metrics.load_runs
-- Grain: pipeline
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-11-30
-- Why: the nightly build's record of its runs, from which plumbline reads how
--      far each nightly relation is loaded (its watermark). Relation names,
--      days, times and row counts only; no member or staff data.

GRANT USAGE ON SCHEMA metrics TO {{reader}};
GRANT SELECT ON metrics.load_runs TO {{reader}};
