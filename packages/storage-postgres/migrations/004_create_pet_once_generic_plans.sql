-- create_pet_once (003) keeps one generic plan per connection for each of its statements.
-- PostgreSQL plans a PL/pgSQL statement afresh for its first five calls on a connection, then
-- keeps a generic plan only if that plan's estimate is no dearer than the fresh ones'. The claim
-- lookup's `scope = ANY (read_scopes)` is estimated for an array of unknown length, so the
-- generic plan always looked dearer and every call planned the lookup again. The plans are the
-- same whatever the values (primary-key lookups and inserts), so the generic one is right from
-- the first call. A function's setting is no session state: it holds while the function runs
-- and is undone when it returns, so a transaction-mode pooler is unaffected.

ALTER FUNCTION create_pet_once(text, bigint, text, text, text, text, bigint, bigint, text[])
  SET plan_cache_mode = force_generic_plan;
