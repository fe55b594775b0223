-- Reach: what each person may see. Membership decides who may connect;
-- reach decides whose figures a member may ask for. Each row gives one
-- person (by their id in plumbline, a service identity's service:NAME
-- included) or one group of the directory one of:
--
--   floor  every team and agent, and the floor's totals
--   team   one team (team_key, the catalogue's team key): its figures and
--          those of the agents on it; one row per team
--   own    only the rows of the agent whose agent_key is the person's id
--   none   nothing: a row that keeps the configured default from applying
--
-- from from_day, through to_day when it is set (both inclusive, in the
-- floor's days). What a person may see on a day is the union of the rows
-- in force that day for them and for every group they are in; a member
-- with no row in force sees what the configured default says
-- (plumbline serve --default-reach).
--
-- Rows are never deleted: a revoke ends a row (to_day, ended_by,
-- ended_at), so who could see what on any past day stays on record. A row
-- ended before its first day has to_day = from_day - 1 and holds on no day.
--
-- What plumbline's auth role may do to it is granted in
-- sql/roles/database.sql: read it, add rows and end them.
CREATE TABLE plumbline.reach (
    reach_id  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    person_id text CHECK (person_id <> ''),
    group_id  uuid REFERENCES plumbline.groups ON DELETE CASCADE,
    sees      text NOT NULL CHECK (sees IN ('floor', 'team', 'own', 'none')),
    team_key  text CHECK (team_key <> ''),
    from_day  date NOT NULL,
    to_day    date,
    set_by    text NOT NULL CHECK (set_by <> ''),
    set_at    timestamptz NOT NULL DEFAULT now(),
    reason    text NOT NULL CHECK (reason <> ''),
    ended_by  text CHECK (ended_by <> ''),
    ended_at  timestamptz,
    CHECK ((person_id IS NULL) <> (group_id IS NULL)),
    CHECK ((sees = 'team') = (team_key IS NOT NULL)),
    CHECK (to_day IS NULL OR to_day >= from_day - 1),
    CHECK ((ended_by IS NULL) = (ended_at IS NULL))
);

CREATE INDEX reach_person ON plumbline.reach (person_id, from_day) WHERE person_id IS NOT NULL;
CREATE INDEX reach_group ON plumbline.reach (group_id, from_day) WHERE group_id IS NOT NULL;
