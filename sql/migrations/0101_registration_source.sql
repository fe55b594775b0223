-- Dynamic Client Registration is limited per source address, counted in
-- the clients table itself, which every replica writes to before it
-- decides: so the limit holds across replicas, and only a valid
-- registration (one that is stored) spends it. Clients registered before
-- this column existed have no source and count against none.
ALTER TABLE plumbline.oauth_clients ADD COLUMN registered_from inet;
CREATE INDEX oauth_clients_source ON plumbline.oauth_clients (registered_from, created_at) WHERE registered_from IS NOT NULL;
