-- The directory: who may connect is kept by the company's identity
-- provider, which provisions people and groups over SCIM 2.0 (RFC 7643,
-- RFC 7644), or by an export that `plumbline members import` reads. Numbered
-- well clear of the sign-in migrations (0100s), which other work extends.
--
-- What plumbline's auth role may do to each table is granted in
-- sql/roles/database.sql: it serves the SCIM endpoint and the import.

-- A member as SCIM sees them. scim_id is the resource's id, assigned here;
-- user_name is SCIM's userName (NULL: the email address), unique whatever
-- its case; external_id and employee_number are what the provider says;
-- kept_by says who keeps the row (NULL: nobody yet, as the demo's and
-- rows put in by hand), and an import deactivates only the members SCIM
-- does not keep. Nothing else of what a provider sends (phone numbers,
-- addresses, passwords) is kept.
ALTER TABLE plumbline.members
    ADD COLUMN scim_id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    ADD COLUMN user_name text CHECK (user_name <> ''),
    ADD COLUMN external_id text,
    ADD COLUMN employee_number text,
    ADD COLUMN given_name text,
    ADD COLUMN family_name text,
    ADD COLUMN kept_by text CHECK (kept_by IN ('scim', 'import')),
    ADD COLUMN created_at timestamptz NOT NULL DEFAULT now();

CREATE UNIQUE INDEX members_user_name ON plumbline.members (lower(coalesce(user_name, email)));

-- Groups, with their members. Their names are unique whatever their case,
-- so that a rule may name a group.
CREATE TABLE plumbline.groups (
    group_id     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    display_name text NOT NULL CHECK (display_name <> ''),
    external_id  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX groups_display_name ON plumbline.groups (lower(display_name));

CREATE TABLE plumbline.group_members (
    group_id  uuid NOT NULL REFERENCES plumbline.groups ON DELETE CASCADE,
    person_id text NOT NULL REFERENCES plumbline.members ON DELETE CASCADE,
    PRIMARY KEY (group_id, person_id)
);

CREATE INDEX group_members_person ON plumbline.group_members (person_id);

-- Every change the directory made, one row each: who made it (scim:NAME,
-- the SCIM token's name, or import), what, and to whom, by id only.
CREATE TABLE plumbline.directory_changes (
    change_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    changed_at timestamptz NOT NULL DEFAULT now(),
    changed_by text NOT NULL,
    action     text NOT NULL,
    person_id  text,
    group_id   uuid
);

-- The SCIM endpoint's own bearer tokens, one per provisioning client,
-- stored only as SHA-256 hashes. They are not OAuth access tokens and open
-- nothing but /scim/v2.
CREATE TABLE plumbline.scim_tokens (
    token_id     bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    token_hash   bytea PRIMARY KEY,
    name         text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    revoked_at   timestamptz
);
