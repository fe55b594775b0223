-- Relation: analytics.targets
-- Grain: team
-- Reviewed by: Dana Okafor, data platform
-- Reviewed on: 2026-12-02
-- Why: each team's target for a metric over a week or a month, with who set
--      it, when and why; answers set figures beside them. Team-level figures
--      and the setter's name only; no member data.

GRANT USAGE ON SCHEMA analytics TO {{reader}};
GRANT SELECT ON analytics.targets TO {{reader}};
