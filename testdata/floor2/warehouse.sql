-- Lakeshore Benefits' warehouse, as its CRM, telephony, HR and ETL exports
-- land: the company's own tables, which plumbline never reads directly.
-- Load the export with psql, from this directory:
--   psql "$DSN" -f warehouse.sql
--   for f in export/*.csv; do t=$(basename "$f" .csv); psql "$DSN" -c "\copy $t FROM '$f' (FORMAT csv, HEADER)"; done
-- Times are UTC instants (timestamptz); days are the floor's days in New York.

CREATE SCHEMA IF NOT EXISTS hr;
CREATE SCHEMA IF NOT EXISTS crm;
CREATE SCHEMA IF NOT EXISTS telephony;
CREATE SCHEMA IF NOT EXISTS etl;

CREATE TABLE IF NOT EXISTS hr.teams (
    team_code   text PRIMARY KEY,
    team_name   text NOT NULL,
    cost_center text NOT NULL
);

-- Whether a team's calls count as sales, by date range (valid_to is the
-- last day the decision held; NULL while it holds).
CREATE TABLE IF NOT EXISTS hr.team_sales_status (
    team_code       text NOT NULL,
    counts_as_sales boolean NOT NULL,
    valid_from      date NOT NULL,
    valid_to        date,
    approved_by     text NOT NULL,
    note            text NOT NULL,
    PRIMARY KEY (team_code, valid_from)
);

CREATE TABLE IF NOT EXISTS hr.employees (
    employee_id      text PRIMARY KEY,
    given_name       text NOT NULL,
    family_name      text NOT NULL,
    work_email       text NOT NULL,
    home_phone       text,
    hire_date        date NOT NULL,
    termination_date date
);

-- Each employee's team, by date range (valid_to is the last day on the
-- team; NULL while they are on it).
CREATE TABLE IF NOT EXISTS hr.team_assignments (
    employee_id text NOT NULL,
    team_code   text NOT NULL,
    valid_from  date NOT NULL,
    valid_to    date,
    PRIMARY KEY (employee_id, valid_from)
);

-- One row per shift; clock_out is NULL until the phone system sends it.
CREATE TABLE IF NOT EXISTS telephony.shifts (
    shift_id          bigint PRIMARY KEY,
    employee_id       text NOT NULL,
    clock_in          timestamptz NOT NULL,
    clock_out         timestamptz,
    not_ready_seconds int,
    talk_seconds      int
);

-- Sales conversations the CRM logged, one row per call, with how it ended.
CREATE TABLE IF NOT EXISTS crm.calls (
    call_id     bigint PRIMARY KEY,
    employee_id text NOT NULL,
    started_at  timestamptz NOT NULL,
    ended_at    timestamptz NOT NULL,
    disposition text NOT NULL CHECK (disposition IN ('sale', 'no_sale'))
);

-- Applications, with their status now and when it last changed: submitted
-- (the carrier has not decided), approved, declined or withdrawn.
CREATE TABLE IF NOT EXISTS crm.applications (
    application_id    text PRIMARY KEY,
    call_id           bigint NOT NULL,
    employee_id       text NOT NULL,
    submitted_at      timestamptz NOT NULL,
    status            text NOT NULL CHECK (status IN ('submitted', 'approved', 'declined', 'withdrawn')),
    status_changed_at timestamptz NOT NULL
);

-- Sales goals per team: APPS (applications submitted) by the week (W, from
-- its Sunday) and CLOSE (close rate) by the month (M). A goal revised is a
-- new row; the latest set_at holds.
CREATE TABLE IF NOT EXISTS crm.team_goals (
    team_code    text NOT NULL,
    goal_kind    text NOT NULL,
    period       text NOT NULL,
    period_start date NOT NULL,
    goal         numeric NOT NULL,
    set_by       text NOT NULL,
    set_at       timestamptz NOT NULL,
    note         text NOT NULL
);

-- The ETL scheduler's runs: each job loads its data up to covered_through
-- (an instant, exclusive); a failed run has finished too.
CREATE TABLE IF NOT EXISTS etl.runs (
    run_id          bigint PRIMARY KEY,
    job             text NOT NULL,
    started_at      timestamptz NOT NULL,
    finished_at     timestamptz,
    covered_through timestamptz NOT NULL,
    status          text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed'))
);
