-- Chaos (chaos.md): an inbox's config, gone with its inbox, and the
-- greylisting state every replica shares.
CREATE TABLE chaos_configs (
    inbox_hash text COLLATE "C" PRIMARY KEY REFERENCES inboxes (hash) ON DELETE CASCADE,
    config     bytea NOT NULL
);
CREATE TABLE chaos_greylist (
    key        text COLLATE "C" PRIMARY KEY,
    first_seen timestamptz NOT NULL,
    attempts   integer NOT NULL
);
CREATE INDEX chaos_greylist_first_seen ON chaos_greylist (first_seen);
