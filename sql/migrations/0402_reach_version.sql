-- A counter that moves whenever a row of reach or of a group's members
-- changes, so that what a caller may see can be kept between transactions
-- (plumbline_seen.caller_reach) and read again as soon as it may differ.
-- The trigger's function runs as its owner: those who change reach need no
-- grant on the counter.
CREATE SEQUENCE plumbline.reach_version;

CREATE FUNCTION plumbline.bump_reach_version() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    PERFORM nextval('plumbline.reach_version');
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION plumbline.bump_reach_version() FROM PUBLIC;

CREATE TRIGGER reach_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON plumbline.reach
    FOR EACH STATEMENT EXECUTE FUNCTION plumbline.bump_reach_version();
CREATE TRIGGER reach_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON plumbline.group_members
    FOR EACH STATEMENT EXECUTE FUNCTION plumbline.bump_reach_version();
