-- Idempotency-Key claims (see the decisions: scoped per API key, stored atomically with the pet).
-- A claim row and its pet are inserted in one transaction, so neither exists without the other.

CREATE TABLE idempotency_keys (
  scope       text        NOT NULL,
  key         text        NOT NULL,
  fingerprint text        NOT NULL,
  pet_id      bigint      NOT NULL REFERENCES pets (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (scope, key)
);

-- Expired claims are purged a few at a time by later idempotent creates.
CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at);
