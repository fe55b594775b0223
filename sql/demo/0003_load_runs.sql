-- The nightly build's own record of its runs, as warehouse pipelines keep one:
-- a row per run, naming the relation it loaded and the day it covered, with
-- when it finished (NULL while it runs). How far a nightly relation's figures
-- run is the newest day a finished run covered, not its newest row: a day on
-- which nobody worked has no rows, yet it was loaded like any other.
CREATE TABLE metrics.load_runs (
    relation    text NOT NULL,
    covers_day  date NOT NULL,
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    row_count   int,
    PRIMARY KEY (relation, covers_day)
);
