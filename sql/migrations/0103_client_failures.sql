-- Failed client authentications at the token and revocation endpoints, one
-- row each: the source address (httpguard.Source) and, when the client is
-- known, its id. Guessing a client's secret is limited per client and per
-- source, counted here before the secret is judged, so the limit holds
-- across replicas. A source or client at its limit is refused before
-- anything is written, so rows grow only with failures the limit let
-- through.
CREATE TABLE plumbline.oauth_client_failures (
    client_id text,  -- NULL for a client_id no client has
    source    inet NOT NULL,
    failed_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX oauth_client_failures_source ON plumbline.oauth_client_failures (source, failed_at);
CREATE INDEX oauth_client_failures_client ON plumbline.oauth_client_failures (client_id, failed_at) WHERE client_id IS NOT NULL;

-- Pruning deletes failures a day old too, long past any limit's window;
-- the function returns one more count, so it is made anew (the roles' file
-- grants it again).
DROP FUNCTION plumbline.prune_signin_state();
CREATE FUNCTION plumbline.prune_signin_state(OUT codes bigint, OUT sessions bigint, OUT tokens bigint, OUT client_failures bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM plumbline.oauth_codes WHERE expires_at < now() - interval '1 day';
    GET DIAGNOSTICS codes = ROW_COUNT;
    DELETE FROM plumbline.oauth_sessions WHERE expires_at < now();
    GET DIAGNOSTICS sessions = ROW_COUNT;
    DELETE FROM plumbline.oauth_tokens WHERE least(expires_at, coalesce(revoked_at, 'infinity')) < now() - interval '30 days';
    GET DIAGNOSTICS tokens = ROW_COUNT;
    DELETE FROM plumbline.oauth_client_failures WHERE failed_at < now() - interval '1 day';
    GET DIAGNOSTICS client_failures = ROW_COUNT;
END $$;
REVOKE ALL ON FUNCTION plumbline.prune_signin_state() FROM PUBLIC;
