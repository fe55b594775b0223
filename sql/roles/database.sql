-- What plumbline's roles hold in one database, besides the reader's grants
-- in sql/grants/. Applied after plumbline's migrations, in one transaction
-- with the grant files, and safe to apply again: afterwards the reader holds
-- exactly what sql/grants/ gives it. Names in double braces are the
-- configured role names.

-- The reader starts from nothing in every schema, so a grant file that is
-- removed is revoked on the next apply.
DO $$
DECLARE
    s name;
BEGIN
    FOR s IN SELECT nspname FROM pg_namespace
             WHERE nspname NOT IN ('pg_catalog', 'information_schema') AND nspname !~ '^pg_(toast|temp_)'
    LOOP
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM {{reader}}', s);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM {{reader}}', s);
        EXECUTE format('REVOKE ALL ON SCHEMA %I FROM {{reader}}', s);
    END LOOP;
END $$;

-- Temporary tables are objects too. PostgreSQL lets every role create them
-- by default; plumbline's login must not be able to.
DO $$ BEGIN EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()); END $$;

-- The request log: the logger writes who, what and when once (the database
-- stamps when), reads back what the per-person limit counts, and afterwards
-- may update only the outcome. It can neither delete a row nor rewrite who,
-- what or when.
GRANT USAGE ON SCHEMA plumbline TO {{logger}};
REVOKE ALL ON plumbline.request_log FROM {{logger}};
GRANT INSERT (request_id, person, client, tool, arguments) ON plumbline.request_log TO {{logger}};
GRANT SELECT (request_id, person, started_at, outcome) ON plumbline.request_log TO {{logger}};
GRANT UPDATE (outcome, duration_ms, row_count) ON plumbline.request_log TO {{logger}};
