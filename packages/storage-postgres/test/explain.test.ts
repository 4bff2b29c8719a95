import { dropSchema, hostPool, uniqueSchema } from '@petstore/test-postgres/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/index.js';
import { queriesFor } from '../src/queries.js';
import { quoteSchema } from '../src/schema-name.js';

// The page queries the storage runs, explained on a table of 100,000 pets.
const ROWS = 100_000;
const LIMIT = 21; // what the core asks for: a page of 20, plus one to know there is a next page

const admin = hostPool();
const schema = uniqueSchema('explain');
const queries = queriesFor(quoteSchema(schema));

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Actual Rows'?: number;
  readonly 'Rows Removed by Filter'?: number;
  readonly Plans?: readonly PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

async function explain(options: string, text: string, values: unknown[]): Promise<PlanNode> {
  const result = await admin.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `EXPLAIN (${options}) ${text}`,
    values,
  );
  const plan = result.rows[0]?.['QUERY PLAN'][0]?.Plan;
  if (plan === undefined) throw new Error('no plan');
  return plan;
}

const expectIndexOnly = (plan: PlanNode): PlanNode => {
  const nodes = nodesOf(plan);
  expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
  const scans = nodes.filter((n) => n['Relation Name'] === 'pets');
  expect(scans.length).toBe(1);
  const [scan] = scans;
  expect(['Index Scan', 'Index Only Scan']).toContain(scan?.['Node Type']);
  return scan as PlanNode;
};

let maxId = 0;

beforeAll(async () => {
  await migrate({ pool: admin, schema });
  // Statuses 60% available, 30% pending, 10% sold, interleaved through the id range.
  await admin.query(
    `INSERT INTO "${schema}".pets (name, category_id, status)
     SELECT 'pet-' || g, (g % 1000) + 1,
            CASE WHEN g % 10 < 6 THEN 'available' WHEN g % 10 < 9 THEN 'pending' ELSE 'sold' END
     FROM generate_series(1, $1::int) AS g`,
    [ROWS],
  );
  await admin.query(`ANALYZE "${schema}".pets`);
  const { rows } = await admin.query<{ max: string }>(
    `SELECT max(id)::text AS max FROM "${schema}".pets`,
  );
  maxId = Number(rows[0]?.max);
});

afterAll(async () => {
  await dropSchema(admin, schema);
  await admin.end();
});

describe(`page queries on ${ROWS.toLocaleString('en')} pets`, () => {
  const cases = [
    { name: 'first page', status: undefined, after: () => 0 },
    { name: 'deep cursor', status: undefined, after: () => maxId - 1000 },
    { name: 'first page, status=sold', status: 'sold', after: () => 0 },
    { name: 'deep cursor, status=sold', status: 'sold', after: () => maxId - 1000 },
    { name: 'deep cursor, status=available', status: 'available', after: () => maxId - 5000 },
    { name: 'cursor past the end, status=pending', status: 'pending', after: () => maxId },
  ] as const;

  for (const c of cases) {
    it(`${c.name}: an index scan reading at most limit rows, never a Seq Scan`, async () => {
      const [text, values] =
        c.status === undefined
          ? [queries.pageOfPets, [c.after(), LIMIT]]
          : [queries.pageOfPetsByStatus, [c.after(), c.status, LIMIT]];
      expect(maxId).toBeGreaterThanOrEqual(ROWS);

      const planned = await explain('FORMAT JSON', text, values);
      expect(planned['Node Type']).toBe('Limit');
      const index = expectIndexOnly(planned)['Index Name'];
      expect(index).toBe(c.status === undefined ? 'pets_pkey' : 'pets_status_id_idx');

      // Executed: the scan touches the page's rows and no others (nothing filtered away).
      const scan = expectIndexOnly(await explain('ANALYZE, FORMAT JSON', text, values));
      expect(scan['Actual Rows']).toBeLessThanOrEqual(LIMIT);
      expect(scan['Rows Removed by Filter'] ?? 0).toBe(0);

      // The generic plan too, which a prepared statement may settle on after a few runs.
      expectIndexOnly(await explain('GENERIC_PLAN, FORMAT JSON', text, []));
    });
  }
});
