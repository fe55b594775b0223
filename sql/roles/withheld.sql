-- What plumbline takes from PUBLIC in each database: the built-ins
-- PostgreSQL lets every role use that would show the analyst other
-- sessions or the size of tables it may not read, or let it act beyond the
-- statement it runs. Revoking from PUBLIC takes them from every role in the
-- database, so database.sql gives each back to the database's owner (pg_dump
-- reads pg_class.relpages and large objects), the statistics to
-- pg_read_all_stats (and so to pg_monitor), and to plumbline's own roles the
-- two functions they use.
--
-- This file is one query, not a script: database.sql revokes what it lists,
-- and plumbline guard refuses a login that can still use any of it. A row
-- names an object as GRANT does (its kind, TABLE or FUNCTION, and its name),
-- the privilege, the columns taken (for a table whose other columns every
-- role keeps), what the privilege would give away, and whether it is a
-- statistic. It lists only what PostgreSQL gives PUBLIC to begin with; what
-- PostgreSQL withholds itself (pg_read_file, lo_import, ...) plumbline guard
-- refuses on its own.
SELECT w.catalog, w.oid, w.kind, w.object, w.privilege, w.columns, w.gives, w.statistic
FROM (
    SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::oid AS catalog, c.oid, 'TABLE' AS kind,
           pg_catalog.format('pg_catalog.%I', c.relname) AS object, 'SELECT' AS privilege, NULL::pg_catalog.text[] AS columns,
           'it shows other sessions and the statistics of every table' AS gives, true AS statistic
    FROM pg_catalog.pg_class c
    WHERE c.relnamespace = 'pg_catalog'::pg_catalog.regnamespace AND c.relkind = 'v'
      AND (c.relname LIKE 'pg\_stat%' OR c.relname IN ('pg_locks', 'pg_prepared_xacts'))
    UNION ALL
    SELECT 'pg_catalog.pg_class'::pg_catalog.regclass::oid, 'pg_catalog.pg_class'::pg_catalog.regclass::oid, 'TABLE',
           'pg_catalog.pg_class', 'SELECT', ARRAY['relallvisible', 'relpages', 'reltuples'], 'they tell the size of every table', true
    UNION ALL
    SELECT 'pg_catalog.pg_proc'::pg_catalog.regclass::oid, p.oid, 'FUNCTION',
           pg_catalog.format('pg_catalog.%I(%s)', p.proname, pg_catalog.oidvectortypes(p.proargtypes)), 'EXECUTE', NULL, f.gives, f.statistic
    FROM pg_catalog.pg_proc p
    JOIN (VALUES
        ('activity', 'it shows other sessions and the statistics of every table', true),
        ('size', 'it tells the size of every table', true),
        ('large object', 'it makes, reads or writes large objects, which no grant file reviews', false),
        ('notify', 'it sends notifications to other sessions', false),
        ('advisory', 'it takes advisory locks, which other sessions wait on', false),
        ('wal', 'it writes to the write-ahead log, in a read-only transaction and past a rollback', false)
    ) f(what, gives, statistic) ON f.what = CASE
        WHEN p.proname LIKE 'pg\_stat\_%' OR p.proname IN ('pg_lock_status', 'pg_blocking_pids', 'pg_safe_snapshot_blocking_pids',
            'pg_isolation_test_session_is_blocked', 'pg_prepared_xact') THEN 'activity'
        WHEN p.proname IN ('pg_relation_size', 'pg_total_relation_size', 'pg_table_size', 'pg_indexes_size', 'pg_database_size',
            'pg_tablespace_size') THEN 'size'
        WHEN p.proname LIKE 'lo\_%' OR p.proname IN ('loread', 'lowrite') THEN 'large object'
        WHEN p.proname = 'pg_notify' THEN 'notify'
        WHEN p.proname LIKE 'pg\_advisory\_%' OR p.proname LIKE 'pg\_try\_advisory\_%' THEN 'advisory'
        WHEN p.proname = 'pg_logical_emit_message' THEN 'wal'
    END
    WHERE p.pronamespace = 'pg_catalog'::pg_catalog.regnamespace
) w
-- Only what PostgreSQL gives PUBLIC to begin with.
WHERE NOT EXISTS (
    SELECT FROM pg_catalog.pg_init_privs i
    WHERE i.classoid = w.catalog AND i.objoid = w.oid AND i.objsubid = 0
      AND NOT EXISTS (SELECT FROM pg_catalog.aclexplode(i.initprivs) a WHERE a.grantee = 0 AND a.privilege_type = w.privilege))
