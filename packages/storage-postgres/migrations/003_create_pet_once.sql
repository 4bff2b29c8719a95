-- The keyed create (a pet and its Idempotency-Key claim, both or neither) as one function, so
-- it costs one round trip and its statements are parsed and planned once per connection rather
-- than on every call. A function is no session state a transaction-mode pooler must know about
-- (its cached plans are the server's own). SET search_path FROM CURRENT: the function reads this
-- schema's tables whatever the caller's search_path is (the migration runs with the target
-- schema as its path).
--
-- Its statements run one after the other, each with a snapshot of its own, and only the last
-- one writes: the lock, the claim looked up, then the claim and its pet. One row comes back:
--   found      a live claim (its fingerprint and pet): a replay or a mismatch
--   in_flight  another transaction holds the claim's lock (tried without waiting)
--   created    the pet it stored, with its claim
--   raced      a live claim appeared that the lock did not keep out (a writer that takes no
--              lock): none written, and the caller reads the claim again

CREATE FUNCTION create_pet_once(
  new_name        text,
  new_category_id bigint,
  new_status      text,
  claim_scope     text,
  claim_key       text,
  claim_print     text,
  retention_ms    bigint,
  lock_key        bigint,
  read_scopes     text[]
) RETURNS TABLE (
  outcome     text,
  fingerprint text,
  id          bigint,
  name        text,
  category_id bigint,
  status      text
)
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
#variable_conflict use_column
DECLARE
  held boolean;
BEGIN
  -- Tried without waiting; held to the end of the transaction.
  held := pg_try_advisory_xact_lock(lock_key);

  -- A live claim answers, held or not: replays of a finished create never see in_flight. This
  -- statement's snapshot is newer than the lock, so it sees a claim committed by whoever held
  -- the lock before. Reads only: a table lock held elsewhere (a migration's) does not hold it up.
  RETURN QUERY
    SELECT 'found', c.fingerprint, p.id, p.name, p.category_id, p.status
    FROM idempotency_keys c JOIN pets p ON p.id = c.pet_id
    WHERE c.key = claim_key AND c.scope = ANY (read_scopes) AND c.expires_at > now()
    LIMIT 1;
  IF FOUND THEN
    RETURN;
  END IF;

  IF NOT held THEN
    outcome := 'in_flight';
    RETURN NEXT;
    RETURN;
  END IF;

  -- The claim with an id drawn for its pet (an expired claim is replaced, a live one never),
  -- then the pet only where the claim was written. The claim's foreign key is checked at the
  -- end of the statement, after the pet's insert.
  RETURN QUERY
    WITH fresh AS (
      SELECT nextval('pets_id_seq'::regclass) AS id
    ), claim AS (
      INSERT INTO idempotency_keys AS c (scope, key, fingerprint, pet_id, expires_at)
      SELECT claim_scope, claim_key, claim_print, fresh.id,
        now() + retention_ms * interval '1 millisecond'
      FROM fresh
      ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint,
        pet_id = EXCLUDED.pet_id, created_at = now(), expires_at = EXCLUDED.expires_at
        WHERE c.expires_at <= now()
      RETURNING c.pet_id
    ), pet AS (
      INSERT INTO pets AS p (id, name, category_id, status) OVERRIDING SYSTEM VALUE
      SELECT claim.pet_id, new_name, new_category_id, new_status FROM claim
      RETURNING p.id, p.name, p.category_id, p.status
    )
    SELECT 'created', NULL::text, pet.id, pet.name, pet.category_id, pet.status FROM pet;
  IF NOT FOUND THEN
    outcome := 'raced';
    RETURN NEXT;
  END IF;
END
$$;
