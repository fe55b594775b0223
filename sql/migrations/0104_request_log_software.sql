-- The MCP client program a call came from, as it named itself (its name and
-- version, from its initialize request or the call's _meta), beside the
-- OAuth client its token was issued to: which app a person used, and which
-- release of it. NULL when the program did not say (a stateless HTTP call
-- on a revision before 2026-07-28 names it only in its initialize request).
ALTER TABLE plumbline.request_log ADD COLUMN software text;
