-- grain: agent
-- A grant file that names no review: the site must say so.
GRANT SELECT ON analytics.dim_agent TO plumbline_reader;
