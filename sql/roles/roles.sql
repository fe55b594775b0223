-- plumbline's roles. Roles belong to the whole cluster, not to one database,
-- so this file is applied once per cluster and may run again at any time:
-- every statement leaves an existing role as it is.
--
-- Names in double braces are the configured role names (plumbline setup
-- --help lists the flags); the defaults are plumbline_reader,
-- plumbline_logger, plumbline_auth, plumbline_app, plumbline_analyst and
-- plumbline_agent.
--
--   reader  NOLOGIN  reads the relations granted in sql/grants/, one file each;
--                    every report runs as this role
--   logger  NOLOGIN  writes the request log (sql/roles/database.sql)
--   auth    NOLOGIN  keeps the token store
--   app     LOGIN    the login plumbline signs in as: a member of exactly
--                    the three roles above, and nothing else
--   analyst NOLOGIN  reads the relations granted in sql/analyst/, one file
--                    each; every statement of the analyst's door runs as it
--   agent   LOGIN    the login the analyst's door signs in as: a member of
--                    the analyst role only, so a statement can become no
--                    other role

DO $$ BEGIN CREATE ROLE {{reader}} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE {{logger}} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE {{auth}} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE {{app}} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE {{analyst}} NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;
DO $$ BEGIN CREATE ROLE {{agent}} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$;

GRANT {{reader}}, {{logger}}, {{auth}} TO {{app}};
GRANT {{analyst}} TO {{agent}};
