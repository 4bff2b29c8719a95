-- A floor for keyed creates, not a storage: create_pet_once with no claim at all (no lock, no
-- lookup, no claim row), the pet insert alone. It keeps the call ours makes (the same message,
-- the same function, its settings) and the Node side's keyed work, so ours/bare with it is the
-- most any design that stores the claim in its own statements within this function can reach.
CREATE OR REPLACE FUNCTION create_pet_once(
  new_name text, new_category_id bigint, new_status text, claim_scope text, claim_key text,
  claim_print text, retention_ms bigint, lock_key bigint, read_scopes text[]
) RETURNS TABLE (
  outcome text, fingerprint text, id bigint, name text, category_id bigint, status text
)
LANGUAGE plpgsql
SET search_path FROM CURRENT
SET plan_cache_mode = force_generic_plan
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    INSERT INTO pets AS p (name, category_id, status)
    VALUES (new_name, new_category_id, new_status)
    RETURNING 'created', NULL::text, p.id, p.name, p.category_id, p.status;
END
$$;
