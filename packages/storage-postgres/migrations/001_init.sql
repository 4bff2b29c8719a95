-- Runs with search_path set to the target schema (see src/migrate.ts), so names are unqualified.
-- Ids stay within JavaScript's safe-integer range: the sequences stop at 2^53 - 1 rather than
-- hand out an id that a client would round.

CREATE TABLE pets (
  id          bigint GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  name        text   NOT NULL CHECK (char_length(name) BETWEEN 1 AND 256),
  category_id bigint NOT NULL CHECK (category_id BETWEEN 1 AND 9007199254740991),
  status      text   NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
);

-- Keyset pages filtered by status: WHERE status = $ AND id > $ ORDER BY id LIMIT $.
-- Unfiltered pages use the primary key index on (id).
CREATE INDEX pets_status_id_idx ON pets (status, id);

CREATE TABLE orders (
  id        bigint      GENERATED ALWAYS AS IDENTITY (MAXVALUE 9007199254740991) PRIMARY KEY,
  -- No foreign key: the port lets a host record an order for any pet id, as every storage does.
  pet_id    bigint      NOT NULL CHECK (pet_id BETWEEN 1 AND 9007199254740991),
  quantity  bigint      NOT NULL CHECK (quantity BETWEEN 1 AND 9007199254740991),
  ship_date timestamptz NOT NULL,
  status    text        NOT NULL CHECK (status IN ('placed', 'approved', 'delivered')),
  complete  boolean     NOT NULL
);
