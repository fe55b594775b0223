-- What plumbline's roles hold in one database, besides the reader's grants
-- in sql/grants/. Applied after plumbline's migrations, in one transaction
-- with the grant files, and safe to apply again: afterwards the reader holds
-- exactly what sql/grants/ gives it. Names in double braces are the
-- configured role names.

-- The reader and the analyst start from nothing in every schema, so a grant
-- file that is removed is revoked on the next apply.
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
        EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM {{analyst}}', s);
        EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM {{analyst}}', s);
        EXECUTE format('REVOKE ALL ON SCHEMA %I FROM {{analyst}}', s);
    END LOOP;
END $$;

-- Temporary tables are objects too. PostgreSQL lets every role create them
-- by default; plumbline's login must not be able to.
DO $$ BEGIN EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database()); END $$;

-- Nor may the analyst see other sessions, the size of tables it may not
-- read, or act beyond its statement: what sql/roles/withheld.sql lists is
-- taken from PUBLIC and given back to the database's owner and, for the
-- statistics, to pg_read_all_stats. Only a superuser may revoke from
-- PostgreSQL's built-ins (anyone else is merely warned), so a revoke that
-- did not take stops setup.
DO $$
DECLARE
    item record;
    owner name := (SELECT pg_catalog.pg_get_userbyid(datdba) FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database());
    back text;
    kept text;
    taken text;
    held boolean;
BEGIN
    FOR item IN {{withheld}}
    LOOP
        back := quote_ident(owner) || CASE WHEN item.statistic THEN ', pg_read_all_stats' ELSE '' END;
        EXECUTE format('REVOKE %s ON %s %s FROM PUBLIC', item.privilege, item.kind, item.object);
        IF item.columns IS NULL THEN
            EXECUTE format('GRANT %s ON %s %s TO %s', item.privilege, item.kind, item.object, back);
            held := CASE item.kind WHEN 'FUNCTION' THEN has_function_privilege('public', item.oid, item.privilege)
                                ELSE has_table_privilege('public', item.oid, item.privilege) END;
        ELSE
            -- Revoking from the table took every column: every role gets
            -- the others back.
            SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FILTER (WHERE a.attname <> ALL (item.columns)),
                   string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) FILTER (WHERE a.attname = ANY (item.columns))
            INTO kept, taken
            FROM pg_catalog.pg_attribute a WHERE a.attrelid = item.oid AND a.attnum > 0 AND NOT a.attisdropped;
            EXECUTE format('GRANT %s (%s) ON %s %s TO PUBLIC', item.privilege, kept, item.kind, item.object);
            EXECUTE format('GRANT %s (%s) ON %s %s TO %s', item.privilege, taken, item.kind, item.object, back);
            held := EXISTS (SELECT FROM unnest(item.columns) c WHERE has_column_privilege('public', item.oid, c, item.privilege));
        END IF;
        IF held THEN
            RAISE EXCEPTION 'could not revoke % on % from PUBLIC: %, and only a superuser may revoke it; run plumbline setup as a superuser',
                item.privilege, item.object, item.gives;
        END IF;
    END LOOP;
END $$;

-- plumbline's own roles use two of those: auth takes a transaction's
-- advisory lock while it issues a person's tokens or registers a client
-- (so that limits hold across replicas), and the request log's batch
-- waits for the disk with a logical decoding message.
GRANT EXECUTE ON FUNCTION pg_catalog.pg_advisory_xact_lock(bigint) TO {{auth}};
GRANT EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text) TO {{logger}};

-- The request log: the logger writes who, what and when once (the database
-- stamps when), reads back what the per-person limit counts and may take a
-- call it refuses out of that count, and writes each call's outcome once.
-- It can neither delete a row nor rewrite who, what or when, nor change an
-- outcome written.
GRANT USAGE ON SCHEMA plumbline TO {{logger}};
REVOKE ALL ON plumbline.request_log FROM {{logger}};
GRANT INSERT (request_id, person, client, tool, arguments, software) ON plumbline.request_log TO {{logger}};
GRANT SELECT (request_id, person, started_at, counted) ON plumbline.request_log TO {{logger}};
GRANT UPDATE (counted) ON plumbline.request_log TO {{logger}};
REVOKE ALL ON plumbline.request_outcome FROM {{logger}};
GRANT INSERT (request_id, outcome, duration_ms, row_count, reach) ON plumbline.request_outcome TO {{logger}};

-- The analyst's audit log (sql/migrations/0200_analyst_log.sql): the logger
-- puts each statement on record once, reads back what the per-service limit
-- counts, and afterwards updates only the outcome.
REVOKE ALL ON plumbline.analyst_log FROM {{logger}};
GRANT INSERT (statement_id, caller, client, statement, statement_bytes, fingerprint) ON plumbline.analyst_log TO {{logger}};
GRANT SELECT (statement_id, caller, started_at, outcome) ON plumbline.analyst_log TO {{logger}};
GRANT UPDATE (outcome, rule, duration_ms, row_count) ON plumbline.analyst_log TO {{logger}};

-- The token store (sql/migrations/0100_oauth.sql): auth reads the
-- membership table, registers clients, keeps sign-in sessions and
-- consents, issues codes and marks them used, issues tokens and revokes
-- them, and counts failed client authentications
-- (sql/migrations/0103_client_failures.sql). It deletes nothing of the
-- token store itself, and rewrites no code, token, session or failure
-- beyond those marks.
GRANT USAGE ON SCHEMA plumbline TO {{auth}};
REVOKE ALL ON plumbline.members, plumbline.oauth_clients, plumbline.oauth_sessions,
    plumbline.oauth_consents, plumbline.oauth_codes, plumbline.oauth_tokens, plumbline.oauth_client_failures,
    plumbline.groups, plumbline.group_members, plumbline.directory_changes, plumbline.scim_tokens,
    plumbline.reach FROM {{auth}};
-- The directory (sql/migrations/0300_directory.sql): auth also serves the
-- SCIM endpoint and the import, which keep the members and groups (a
-- person or group the provider deletes is deleted, with what they hold),
-- put each change on record once, and check the SCIM endpoint's tokens.
GRANT SELECT, DELETE ON plumbline.members TO {{auth}};
GRANT INSERT (person_id, scim_id, email, display_name, status, user_name, external_id, employee_number, given_name, family_name, kept_by)
    ON plumbline.members TO {{auth}};
GRANT UPDATE (email, display_name, status, updated_at, user_name, external_id, employee_number, given_name, family_name, kept_by)
    ON plumbline.members TO {{auth}};
GRANT SELECT, DELETE ON plumbline.groups TO {{auth}};
GRANT INSERT (display_name, external_id), UPDATE (display_name, external_id, updated_at) ON plumbline.groups TO {{auth}};
GRANT SELECT, INSERT, DELETE ON plumbline.group_members TO {{auth}};
GRANT INSERT (changed_by, action, person_id, group_id) ON plumbline.directory_changes TO {{auth}};
GRANT SELECT, INSERT (token_hash, name, expires_at) ON plumbline.scim_tokens TO {{auth}};
-- Reach (sql/migrations/0400_reach.sql): auth reads it to resolve a
-- caller's reach, adds rows and ends them (plumbline access); it deletes
-- none and rewrites nothing but a row's end.
GRANT SELECT, INSERT (person_id, group_id, sees, team_key, from_day, to_day, set_by, reason) ON plumbline.reach TO {{auth}};
GRANT UPDATE (to_day, ended_by, ended_at) ON plumbline.reach TO {{auth}};
GRANT UPDATE (last_used_at, revoked_at) ON plumbline.scim_tokens TO {{auth}};
GRANT SELECT, INSERT ON plumbline.oauth_clients TO {{auth}};
GRANT SELECT, INSERT ON plumbline.oauth_sessions TO {{auth}};
GRANT SELECT, INSERT ON plumbline.oauth_consents TO {{auth}};
GRANT UPDATE (scope, granted_at) ON plumbline.oauth_consents TO {{auth}};
GRANT SELECT, INSERT ON plumbline.oauth_codes TO {{auth}};
GRANT UPDATE (used_at) ON plumbline.oauth_codes TO {{auth}};
GRANT SELECT, INSERT ON plumbline.oauth_tokens TO {{auth}};
GRANT UPDATE (revoked_at) ON plumbline.oauth_tokens TO {{auth}};
GRANT SELECT, INSERT ON plumbline.oauth_client_failures TO {{auth}};
-- It may prune on a schedule only through the function that holds the
-- rules (sql/migrations/0102_prune_signin.sql, made anew in
-- 0103_client_failures.sql), which deletes nothing live.
GRANT EXECUTE ON FUNCTION plumbline.prune_signin_state() TO {{auth}};
