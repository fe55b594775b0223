-- The demo floor: the reporting relations of a small sales floor, as a
-- warehouse would publish them. Relation and column names are a contract:
-- the catalogue and other tools query them directly.

CREATE SCHEMA analytics;
CREATE SCHEMA metrics;
CREATE SCHEMA live;
CREATE SCHEMA crm;

CREATE TABLE analytics.dim_team (
    team_key       text PRIMARY KEY,
    team_name      text NOT NULL,
    lead_agent_key text
);

CREATE TABLE analytics.dim_agent (
    agent_key text PRIMARY KEY,
    full_name text NOT NULL,
    email     text NOT NULL,
    hired_on  date NOT NULL,
    left_on   date
);

-- Which team an agent is on from a date; the latest row on or before a day wins.
CREATE TABLE analytics.agent_team_history (
    agent_key      text NOT NULL,
    team_key       text NOT NULL,
    effective_from date NOT NULL,
    PRIMARY KEY (agent_key, effective_from)
);

-- Whether a team counts as a sales team ("the floor") from a date, and who decided.
CREATE TABLE analytics.team_floor_history (
    team_key        text NOT NULL,
    effective_from  date NOT NULL,
    counts_as_sales boolean NOT NULL,
    decided_by      text NOT NULL,
    reason          text NOT NULL,
    PRIMARY KEY (team_key, effective_from)
);

-- Hours per agent per day; NULL hours have not come in yet.
CREATE TABLE metrics.agent_time_daily (
    agent_key       text NOT NULL,
    day             date NOT NULL,
    logged_hours    numeric(6,2),
    available_hours numeric(6,2),
    talk_hours      numeric(6,2),
    PRIMARY KEY (agent_key, day)
);

-- Sales per agent per day from the nightly CRM build; approved stays NULL until
-- the carrier confirms.
CREATE TABLE metrics.agent_sales_daily (
    agent_key text NOT NULL,
    day       date NOT NULL,
    submitted int NOT NULL,
    lost      int NOT NULL,
    approved  int,
    PRIMARY KEY (agent_key, day)
);

CREATE TABLE metrics.agent_quality_daily (
    agent_key     text NOT NULL,
    day           date NOT NULL,
    audits_passed int NOT NULL,
    audits_failed int NOT NULL,
    PRIMARY KEY (agent_key, day)
);

-- The live sales board, one row per entry, kept historically too.
CREATE TABLE live.sales_board (
    agent_key  text NOT NULL,
    entered_at timestamptz NOT NULL,
    sales      int NOT NULL
);

-- Member data. It is never granted to plumbline's roles.
CREATE TABLE crm.member_calls (
    call_id       bigint PRIMARY KEY,
    agent_key     text NOT NULL,
    member_name   text NOT NULL,
    member_phone  text NOT NULL,
    date_of_birth date NOT NULL,
    transcript    text NOT NULL,
    recording_url text NOT NULL
);

-- Range scans over a period and the newest day of each source.
CREATE INDEX agent_time_daily_day ON metrics.agent_time_daily (day);
CREATE INDEX agent_sales_daily_day ON metrics.agent_sales_daily (day);
CREATE INDEX agent_quality_daily_day ON metrics.agent_quality_daily (day);
CREATE INDEX sales_board_entered_at ON live.sales_board (entered_at);
