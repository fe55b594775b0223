-- A call's outcome gets a row of its own, and the request log is written
-- once a call.
--
-- Writing the outcome onto the call's row made every row two versions: on
-- its page when there was room, but either way the first version died, and
-- once vacuum had cleared it, the space it left on the pages written a few
-- minutes before was offered to new calls' rows. New rows then went to
-- pages scattered behind the end of the table instead of its last page:
-- pages no longer in the cache, each written out in full to the write-ahead
-- log on its first change after a checkpoint. On a log of a million rows,
-- after the first autovacuum, a call's WAL doubled (730 to 1,500 bytes) and
-- its reads of the log from outside the cache too.
--
-- Now both tables only grow at their end: a call's row is inserted when it
-- is admitted, its outcome when it ends, and neither is updated, but for a
-- call the limit refuses, which leaves the limit's count. The logger can
-- write an outcome once and never change it.

CREATE TABLE plumbline.request_outcome (
    request_id  text PRIMARY KEY,   -- the call's row in plumbline.request_log
    outcome     text NOT NULL,      -- ok, candidates, cached or a refusal code
    duration_ms double precision,
    row_count   int
);

INSERT INTO plumbline.request_outcome (request_id, outcome, duration_ms, row_count)
SELECT request_id, outcome, duration_ms, row_count
FROM plumbline.request_log WHERE outcome IS NOT NULL;

ALTER TABLE plumbline.request_log DROP COLUMN outcome, DROP COLUMN duration_ms, DROP COLUMN row_count;
-- No update is made on a row's page any more: fill the pages.
ALTER TABLE plumbline.request_log RESET (fillfactor);

-- Every call with its outcome, as the log read before the split: the
-- outcome is NULL while the call runs, or when a crash lost it.
CREATE VIEW plumbline.calls AS
SELECT l.request_id, l.person, l.client, l.tool, l.arguments, l.started_at,
       o.outcome, o.duration_ms, o.row_count, l.counted
FROM plumbline.request_log l LEFT JOIN plumbline.request_outcome o USING (request_id);
