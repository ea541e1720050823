-- Inboxes and their emails; payloads as bytea, exactly as served.
CREATE TABLE inboxes (
    hash          text COLLATE "C" PRIMARY KEY,
    address       text NOT NULL UNIQUE,
    encrypted     boolean NOT NULL,
    email_auth    boolean NOT NULL,
    client_kem_pk bytea,
    created_at    timestamptz NOT NULL,
    expires_at    timestamptz NOT NULL
);
CREATE INDEX inboxes_expires_at ON inboxes (expires_at);

CREATE TABLE emails (
    inbox_hash  text COLLATE "C" NOT NULL REFERENCES inboxes (hash) ON DELETE CASCADE,
    id          text COLLATE "C" NOT NULL,
    received_at timestamptz NOT NULL,
    -- stored_at is the database's clock at commit time: the listener's
    -- catch-up after a lost connection reads emails stored since then.
    stored_at   timestamptz NOT NULL DEFAULT now(),
    -- origin is the replica that stored it (its catch-up skips its own).
    origin      text NOT NULL,
    is_read     boolean NOT NULL DEFAULT false,
    unsigned    smallint NOT NULL DEFAULT 0,
    size        bigint NOT NULL,
    metadata    bytea NOT NULL,
    parsed      bytea NOT NULL,
    raw         bytea NOT NULL,
    PRIMARY KEY (inbox_hash, id)
);
-- Oldest first across inboxes (the total-size limit).
CREATE INDEX emails_id ON emails (id);
CREATE INDEX emails_stored_at ON emails (stored_at);
-- Payloads a replica left unsigned (the signer's recovery pass).
CREATE INDEX emails_unsigned ON emails (stored_at) WHERE unsigned <> 0;

-- Cluster-wide secrets: the ML-DSA signing key and the API key.
CREATE TABLE secrets (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);

-- Webhooks: the settings as the engine's JSON record; what deliveries
-- change on any replica lives in columns updated in place.
CREATE SEQUENCE webhook_seq;
CREATE TABLE webhooks (
    id                   text PRIMARY KEY,
    seq                  bigint NOT NULL DEFAULT nextval('webhook_seq'),
    inbox_hash           text REFERENCES inboxes (hash) ON DELETE CASCADE,
    record               bytea NOT NULL,
    enabled              boolean NOT NULL,
    total                bigint NOT NULL DEFAULT 0,
    successful           bigint NOT NULL DEFAULT 0,
    failed               bigint NOT NULL DEFAULT 0,
    consecutive_failures integer NOT NULL DEFAULT 0,
    last_delivery_at     timestamptz,
    last_delivery_ok     boolean
);

-- webhook_version counts webhook changes: a commit that queues deliveries
-- rendered from an older set of webhooks is refused (check_webhook_version),
-- so that a webhook answered on one replica applies to the next mail any
-- replica commits.
CREATE TABLE webhook_version (v bigint NOT NULL);
INSERT INTO webhook_version VALUES (0);
CREATE FUNCTION check_webhook_version(expected bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF (SELECT v FROM webhook_version) <> expected THEN
        RAISE EXCEPTION 'webhooks changed since the deliveries were rendered' USING ERRCODE = 'SV001';
    END IF;
END $$;

-- The delivery queue: each row is one delivery, claimed by one replica at
-- a time (FOR UPDATE SKIP LOCKED, then a lease).
CREATE TABLE webhook_deliveries (
    id          text PRIMARY KEY,
    webhook_id  text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    seq         bigint NOT NULL DEFAULT nextval('webhook_seq'),
    attempt     integer NOT NULL,
    due         timestamptz NOT NULL,
    lease_until timestamptz,
    lease_owner text,
    pending     bytea NOT NULL
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due, seq);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id);
