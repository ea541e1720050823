-- The principal (an SSH key's fingerprint) that created an inbox; '' for
-- one created with the server's API key (server/access).
ALTER TABLE inboxes ADD COLUMN owner text NOT NULL DEFAULT '';
