-- The analyst's limits: settings PostgreSQL holds every statement of the
-- analyst's door to, in the database itself, whatever the door asks for.
-- Roles belong to the whole cluster, so this file is applied with
-- roles.sql, after it, and may run again at any time: each statement sets
-- the value given.
--
-- PostgreSQL applies a role's settings when a session signs in as it, not
-- when it becomes the role: on the agent login they hold for every
-- statement of the door, which signs in as it and then runs as the
-- analyst; the analyst role carries them too, so that the role's
-- definition says what bounds it. The agent cannot raise temp_file_limit
-- (only a superuser may). plumbline guard --analyst-db refuses a login
-- where one is missing or looser than plumbline is configured with.
--
-- Names in double braces are the configured role names and the limits
-- (plumbline setup --help lists the flags).

ALTER ROLE {{agent}} SET statement_timeout = '{{statement_timeout}}';
ALTER ROLE {{agent}} SET lock_timeout = '{{lock_timeout}}';
ALTER ROLE {{agent}} SET idle_in_transaction_session_timeout = '{{idle_in_transaction_session_timeout}}';
ALTER ROLE {{agent}} SET work_mem = '{{work_mem}}';
ALTER ROLE {{agent}} SET temp_file_limit = '{{temp_file_limit}}';

ALTER ROLE {{analyst}} SET statement_timeout = '{{statement_timeout}}';
ALTER ROLE {{analyst}} SET lock_timeout = '{{lock_timeout}}';
ALTER ROLE {{analyst}} SET idle_in_transaction_session_timeout = '{{idle_in_transaction_session_timeout}}';
ALTER ROLE {{analyst}} SET work_mem = '{{work_mem}}';
ALTER ROLE {{analyst}} SET temp_file_limit = '{{temp_file_limit}}';
