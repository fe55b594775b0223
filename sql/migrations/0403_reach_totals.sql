-- Reach may give the floor's totals: figures about the whole floor, over
-- time, but not each team's or agent's (a team lead sees their own team
-- and these, say).
--
--   totals  the floor's totals, in hours, sales and quality, never grouped
--           by team or agent
ALTER TABLE plumbline.reach DROP CONSTRAINT reach_sees_check,
    ADD CONSTRAINT reach_sees_check CHECK (sees IN ('floor', 'team', 'own', 'none', 'totals'));
