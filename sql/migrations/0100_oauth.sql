-- Sign-in: the membership table, and what plumbline's authorization server
-- keeps. Secrets are never stored: codes, tokens, sessions and client secrets
-- appear only as SHA-256 hashes. Expiry is always judged by the database's
-- clock.
--
-- What plumbline's auth role may do to each table is granted with the roles;
-- the statements run as that role (SET LOCAL ROLE) when it is configured.

-- Who may sign in and use a token: the directory sync keeps this table, and
-- only an active member may. Removing, banning or locking someone cuts their
-- access within the membership cache window (60 s by default).
CREATE TABLE plumbline.members (
    person_id    text PRIMARY KEY CHECK (person_id <> '' AND person_id NOT LIKE 'service:%'),
    email        text NOT NULL UNIQUE CHECK (email = lower(email) AND email LIKE '%_@_%'),
    display_name text NOT NULL,
    status       text NOT NULL CHECK (status IN ('active', 'removed', 'banned', 'locked')),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Clients registered through Dynamic Client Registration (RFC 7591). Client
-- ID Metadata Documents are fetched, never stored here; pre-registered
-- clients come from configuration. Ids minted here never look like URLs.
CREATE TABLE plumbline.oauth_clients (
    client_id        text PRIMARY KEY CHECK (client_id !~* '^https?:'),
    secret_hash      bytea,  -- NULL for a public client
    auth_method      text NOT NULL CHECK (auth_method IN ('none', 'client_secret_basic', 'client_secret_post')),
    client_name      text NOT NULL,
    redirect_uris    text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
    application_type text NOT NULL CHECK (application_type IN ('native', 'web')),
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((auth_method = 'none') = (secret_hash IS NULL))
);

-- A person signed in through the identity provider, in one browser, for
-- the consent page. The form on that page must carry the session's CSRF
-- token.
CREATE TABLE plumbline.oauth_sessions (
    session_hash bytea PRIMARY KEY,
    person_id    text NOT NULL,
    csrf         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);

-- Consent, remembered per person, client and redirect URI: a client that
-- asks again for no more than it was granted skips the consent page.
CREATE TABLE plumbline.oauth_consents (
    person_id    text NOT NULL,
    client_id    text NOT NULL,
    redirect_uri text NOT NULL,
    scope        text NOT NULL,
    granted_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (person_id, client_id, redirect_uri)
);

-- Authorization codes: five minutes, used once. Redemption is one
-- conditional UPDATE of used_at, so two racing redemptions cannot both win.
CREATE TABLE plumbline.oauth_codes (
    code_hash      bytea PRIMARY KEY,
    client_id      text NOT NULL,
    person_id      text NOT NULL,
    redirect_uri   text NOT NULL,
    code_challenge text NOT NULL,  -- PKCE S256
    scope          text NOT NULL,
    resource       text NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL,
    used_at        timestamptz
);

-- Access tokens, for people (issued through the flow) and services (issued
-- by `plumbline token create`). Every request reads its token's row, so a
-- revocation takes effect on the next request. Only tokens whose issuer and
-- resource are this server's are accepted.
CREATE TABLE plumbline.oauth_tokens (
    token_id   bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    token_hash bytea PRIMARY KEY,
    kind       text NOT NULL CHECK (kind IN ('person', 'service')),
    subject    text NOT NULL,  -- the person_id, or the service's name
    client_id  text NOT NULL,
    scope      text NOT NULL,
    issuer     text NOT NULL,
    resource   text NOT NULL,
    code_hash  bytea,          -- the code it was issued for, if any
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);

CREATE INDEX oauth_tokens_live ON plumbline.oauth_tokens (kind, subject, created_at) WHERE revoked_at IS NULL;
CREATE INDEX oauth_tokens_code ON plumbline.oauth_tokens (code_hash) WHERE code_hash IS NOT NULL;
