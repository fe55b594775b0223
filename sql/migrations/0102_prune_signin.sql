-- Pruning the sign-in state that can no longer be used, in one function
-- that holds the rules: codes a day past their expiry (a replay within that
-- day is still recognised and revokes what the code bought), sign-in
-- sessions once expired, and tokens 30 days past their expiry or
-- revocation (plumbline token list --all and an audit can still name
-- them). It runs with its owner's rights, so plumbline's own login may call
-- it on a schedule and still delete nothing by itself: nothing live, and
-- nothing within its grace.
CREATE FUNCTION plumbline.prune_signin_state(OUT codes bigint, OUT sessions bigint, OUT tokens bigint)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    DELETE FROM plumbline.oauth_codes WHERE expires_at < now() - interval '1 day';
    GET DIAGNOSTICS codes = ROW_COUNT;
    DELETE FROM plumbline.oauth_sessions WHERE expires_at < now();
    GET DIAGNOSTICS sessions = ROW_COUNT;
    DELETE FROM plumbline.oauth_tokens WHERE least(expires_at, coalesce(revoked_at, 'infinity')) < now() - interval '30 days';
    GET DIAGNOSTICS tokens = ROW_COUNT;
END $$;
REVOKE ALL ON FUNCTION plumbline.prune_signin_state() FROM PUBLIC;
