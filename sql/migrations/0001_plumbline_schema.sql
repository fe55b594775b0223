-- plumbline's own schema. The migration ledger (plumbline.schema_migrations)
-- is created by the migrator itself; the request log, token store and rate
-- limits arrive in later migrations.

COMMENT ON SCHEMA plumbline IS 'plumbline: request log, token store and limits';
