-- The analyst's audit log. Every statement sent through the analyst's door
-- (the sql tool, for contained agents) is put on record here before it runs:
-- who sent it (the service, or whoever tried the door without being one),
-- through which client, the statement as sent and its fingerprint from
-- PostgreSQL's parser, and when (stamped by the database). If that write
-- fails the statement is not run. When it ends, its outcome is filled in:
-- ok or the refusal code, the rule it broke, the duration and the rows it
-- returned. The rows themselves are never kept.
--
-- What plumbline's logger role may do to this table is granted in
-- sql/roles/database.sql: insert the statement, read back what the
-- per-service limit counts, and update only the outcome columns.

CREATE TABLE plumbline.analyst_log (
    statement_id    text PRIMARY KEY,
    caller          text NOT NULL,   -- service:NAME, or the person who tried the door
    client          text NOT NULL,
    statement       text NOT NULL,   -- as sent, cut at the longest statement taken
    statement_bytes int NOT NULL,    -- its whole length
    fingerprint     text,            -- NULL when the parser refused it
    started_at      timestamptz NOT NULL DEFAULT now(),
    outcome         text,            -- ok or a refusal code; NULL while it runs
    rule            text,            -- the check a refused statement broke
    duration_ms     double precision,
    row_count       int
);

-- The per-service limit counts a caller's statements over the last minute.
CREATE INDEX analyst_log_caller_started ON plumbline.analyst_log (caller, started_at);
