-- The keyed create (a pet and its Idempotency-Key claim, both or neither) as one function, so
-- its statement is parsed and planned once per connection rather than on every call: sent as
-- text, the same statement cost PostgreSQL more to plan than to run. A function is no session
-- state a transaction-mode pooler must know about (its cached plans are the server's own).
-- SET search_path FROM CURRENT: the function reads this schema's tables whatever the caller's
-- search_path is (the migration runs with the target schema as its path).
--
-- In order: the claim's advisory lock, without waiting; the claim as this statement's snapshot
-- sees it; an id drawn only to create; the claim written with that id (an expired claim is
-- replaced, a live one never); the pet only where its claim was written. The claim's foreign
-- key is checked at the end of the statement, after the pet's insert. One row comes back:
--   created    the pet it stored
--   found      a live claim (its fingerprint and pet): a replay or a mismatch
--   in_flight  another transaction holds the claim's lock
--   raced      a claim committed after the snapshot but before the lock: none written, and the
--              caller reads the claim again in a statement of its own (a fresh snapshot)

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
  live        boolean,
  id          bigint,
  name        text,
  category_id bigint,
  status      text
)
LANGUAGE plpgsql
SET search_path FROM CURRENT
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH locked AS (
    SELECT pg_try_advisory_xact_lock(lock_key) AS held
  ), found AS (
    SELECT c.fingerprint, c.expires_at > now() AS live, p.id, p.name, p.category_id, p.status
    FROM idempotency_keys c JOIN pets p ON p.id = c.pet_id
    WHERE c.key = claim_key AND c.scope = ANY (read_scopes)
    ORDER BY c.expires_at > now() DESC
    LIMIT 1
  ), fresh AS (
    SELECT nextval('pets_id_seq'::regclass) AS id FROM locked
    WHERE locked.held AND NOT EXISTS (SELECT FROM found WHERE found.live)
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
  SELECT 'created', NULL::text, NULL::boolean, pet.id, pet.name, pet.category_id, pet.status
  FROM pet
  UNION ALL
  SELECT 'found', found.fingerprint, found.live, found.id, found.name, found.category_id,
    found.status
  FROM found
  WHERE found.live AND NOT EXISTS (SELECT FROM pet)
  UNION ALL
  SELECT CASE WHEN locked.held THEN 'raced' ELSE 'in_flight' END,
    NULL, NULL, NULL, NULL, NULL, NULL
  FROM locked
  WHERE NOT EXISTS (SELECT FROM pet) AND NOT EXISTS (SELECT FROM found WHERE found.live);
END
$$;
