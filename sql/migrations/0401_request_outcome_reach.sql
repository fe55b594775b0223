-- The reach that applied to each call (what the caller could see: floor,
-- none, own, team:KEY,… or own and teams joined by +), written with its
-- outcome: the reach is resolved once the call is on record, as part of
-- answering it. NULL for a call refused before its reach was resolved
-- (over its limit, a tool its token does not allow).
ALTER TABLE plumbline.request_outcome ADD COLUMN reach text;
