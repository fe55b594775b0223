-- Every call's row is updated once, when its outcome is written. PostgreSQL
-- can make that update in place on the row's page (a heap-only update, with
-- no new index entries and nothing for vacuum to remove from the indexes)
-- only when the update changes no column an index reads, its predicate
-- included. The limit's index was partial on the outcome, so no outcome
-- update could be made in place: each one added a second entry to every
-- index, and left a dead row whose entries only vacuum could clear.
--
-- Whether a call counts against the limit is now a column of its own,
-- cleared only by the limit's check when it refuses the call; the outcome
-- writer never touches it. And the log's pages keep a fifth free, so that
-- the outcome of a call fits on the page its row was written to.
ALTER TABLE plumbline.request_log ADD COLUMN counted boolean NOT NULL DEFAULT true;
UPDATE plumbline.request_log SET counted = false WHERE outcome = 'rate_limited';

DROP INDEX plumbline.request_log_counted;
CREATE INDEX request_log_counted ON plumbline.request_log (person, started_at) WHERE counted;

ALTER TABLE plumbline.request_log SET (fillfactor = 80);
