-- The request log. Every call is put on record before any report SQL runs:
-- who (person, and the client they came through), what (tool and arguments)
-- and when (started_at, stamped by the database, never by the caller). When
-- the call ends, its outcome, duration and row count are filled in.
--
-- Arguments are kept in loggable form: fixed choices as given, free text as
-- a keyed hash plus its length, never as typed. No database error text is
-- ever written here.
--
-- What plumbline's logger role may do to this table is granted in
-- sql/roles/database.sql: insert who/what, read back what the rate limit
-- counts, and update only the outcome columns.

CREATE TABLE plumbline.request_log (
    request_id  text PRIMARY KEY,
    person      text NOT NULL,
    client      text NOT NULL,
    tool        text NOT NULL,
    arguments   jsonb NOT NULL,
    started_at  timestamptz NOT NULL DEFAULT now(),
    outcome     text,             -- ok, candidates or a refusal code; NULL while the call runs
    duration_ms double precision,
    row_count   int
);

-- The per-person limit counts a person's calls over the last minute.
CREATE INDEX request_log_person_started ON plumbline.request_log (person, started_at);
