-- Targets: the figure a team is asked to reach for a metric over a week or a
-- calendar month, decided by a person and dated, like who counts as the
-- floor. A target may be revised: every version stays, and the latest set_at
-- is the one that holds.
CREATE TABLE analytics.targets (
    team_key     text NOT NULL,
    metric       text NOT NULL,
    period_kind  text NOT NULL CHECK (period_kind IN ('week', 'month')),
    period_start date NOT NULL,
    value        numeric NOT NULL,
    set_by       text NOT NULL,
    set_at       timestamptz NOT NULL,
    reason       text NOT NULL,
    PRIMARY KEY (team_key, metric, period_kind, period_start, set_at)
);
