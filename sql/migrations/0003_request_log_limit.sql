-- The per-person limit (internal/limits) reads a person's N-th most recent
-- call that counts against it. This index holds only such calls: a call
-- refused for the limit leaves it when it is marked so, so a client calling
-- far past its limit does not make each check read further back. Either way
-- a check reads at most N rows, however long the log grows.
DROP INDEX plumbline.request_log_person_started;
CREATE INDEX request_log_counted ON plumbline.request_log (person, started_at)
    WHERE outcome IS DISTINCT FROM 'rate_limited';

-- Retention (plumbline prune-log) deletes the oldest rows: a block range
-- index on when finds them without reading the rest, at a few pages' cost.
CREATE INDEX request_log_started ON plumbline.request_log USING brin (started_at);
