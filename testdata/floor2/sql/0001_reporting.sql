-- Lakeshore Benefits' mapping: views the company owns, in a schema of its
-- own, that present its warehouse in the shapes its plumbline catalogue
-- reads (catalog/). plumbline setup --sql applies this directory in file
-- order, once each, and grants the views afterwards; a later change is a
-- new file (CREATE OR REPLACE VIEW), never an edit of this one.
-- The floor's days are days in New York: every UTC instant becomes a day
-- there, never its UTC date.

CREATE SCHEMA reporting;

CREATE VIEW reporting.teams AS
SELECT team_code, team_name FROM hr.teams;

-- No home phone: the reader must never see it.
CREATE VIEW reporting.agents AS
SELECT employee_id, given_name || ' ' || family_name AS full_name, lower(work_email) AS work_email,
       hire_date, termination_date
FROM hr.employees;

-- HR's ranges as they are: plumbline check --db proves they neither
-- overlap nor leave a gap, so each day has one team.
CREATE VIEW reporting.team_history AS
SELECT employee_id, team_code, valid_from, valid_to FROM hr.team_assignments;

CREATE VIEW reporting.team_floor AS
SELECT team_code, valid_from, valid_to, counts_as_sales, approved_by AS decided_by, note AS reason
FROM hr.team_sales_status;

-- One row per agent and day they worked, by the day the shift started in
-- New York (a shift past midnight belongs to the day it began). Hours are
-- unknown (NULL) while any of the day's shifts has no clock-out.
CREATE VIEW reporting.agent_hours_daily AS
SELECT employee_id, (clock_in AT TIME ZONE 'America/New_York')::date AS day,
       CASE WHEN bool_and(clock_out IS NOT NULL) THEN sum(extract(epoch FROM clock_out - clock_in)) / 3600 END AS logged_hours,
       CASE WHEN bool_and(clock_out IS NOT NULL)
            THEN sum(extract(epoch FROM clock_out - clock_in) - not_ready_seconds) / 3600 END AS available_hours,
       CASE WHEN bool_and(clock_out IS NOT NULL) THEN sum(talk_seconds) / 3600.0 END AS talk_hours
FROM telephony.shifts
GROUP BY 1, 2;

-- One row per agent and day with applications submitted or conversations
-- lost, by their New York day. An application counts on the day it was
-- submitted, whenever its status changed; approvals are unknown (NULL)
-- while any of the day's applications waits for the carrier.
CREATE VIEW reporting.agent_sales_daily AS
WITH apps AS (
    SELECT employee_id, (submitted_at AT TIME ZONE 'America/New_York')::date AS day, count(*) AS submitted,
           count(*) FILTER (WHERE status = 'approved') AS approved, bool_or(status = 'submitted') AS waiting
    FROM crm.applications
    GROUP BY 1, 2
), lost AS (
    SELECT employee_id, (started_at AT TIME ZONE 'America/New_York')::date AS day, count(*) AS lost
    FROM crm.calls
    WHERE disposition = 'no_sale'
    GROUP BY 1, 2
)
SELECT coalesce(a.employee_id, l.employee_id) AS employee_id, coalesce(a.day, l.day) AS day,
       coalesce(a.submitted, 0)::int AS submitted, coalesce(l.lost, 0)::int AS lost,
       CASE WHEN a.waiting THEN NULL ELSE coalesce(a.approved, 0)::int END AS approved
FROM apps a
FULL JOIN lost l ON l.employee_id = a.employee_id AND l.day = a.day;

-- The load watermarks: a job's run covers up to an instant (exclusive), so
-- the last whole day is the New York day just before it. A failed run
-- finished too, but loaded nothing: only a run that succeeded counts.
CREATE VIEW reporting.loads AS
SELECT job, ((covered_through AT TIME ZONE 'America/New_York') - interval '1 microsecond')::date AS covers_day,
       CASE WHEN status = 'succeeded' THEN finished_at END AS finished_at
FROM etl.runs;

-- The sales goals, in the catalogue's metric ids and period kinds.
CREATE VIEW reporting.targets AS
SELECT team_code,
       CASE goal_kind WHEN 'APPS' THEN 'submitted_sales' WHEN 'CLOSE' THEN 'close_rate' END AS metric,
       CASE period WHEN 'W' THEN 'week' WHEN 'M' THEN 'month' END AS period_kind,
       period_start, goal AS value, set_by, set_at, note AS reason
FROM crm.team_goals
WHERE goal_kind IN ('APPS', 'CLOSE') AND period IN ('W', 'M');
