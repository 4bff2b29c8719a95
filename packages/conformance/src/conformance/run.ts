import type { PetStorage, PetStore } from '@petstore/core';
import { DEFAULT_API_PATH } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import type { StoreHost } from '../hosted.js';
import { createResponseValidator } from '../response-validator.js';
import type { ConformanceTarget, WireRequest, WireResponse } from '../wire.js';
import { storeForCase } from './case-store.js';
import { conformanceCases } from './cases.js';
import { JSON_TYPE } from './helpers.js';
import type { CaseContext, ConformanceCase, Expectation } from './types.js';

/** The store built here, in this process, and served by your adapter. */
interface InProcess {
  /** A fresh, empty storage for each case; the runner closes it afterwards. */
  readonly storage: () => PetStorage | Promise<PetStorage>;
  /** Serves `store` mounted at `/v1` (through your adapter, over a real socket). */
  readonly serve: (store: PetStore) => ConformanceTarget | Promise<ConformanceTarget>;
}

/** The store built by a host in another process or runtime, from each case's name. */
interface Hosted {
  readonly host: StoreHost;
}

export type RunConformanceOptions = (InProcess | Hosted) & {
  /** Suite name, e.g. 'express over memory'. */
  readonly name: string;
  /**
   * Cases this target is known to answer differently, by name, with the reason.
   * They still run, as `it.fails`: the suite notices when one starts passing.
   * A name that is not a case is an error, so the list cannot go stale.
   */
  readonly knownDifferences?: Readonly<Record<string, string>> | undefined;
};

/** Rules that hold for every answer, whichever case sent the request. */
function checkInvariants(
  wire: WireRequest,
  res: WireResponse,
  validate: ReturnType<typeof createResponseValidator>,
) {
  const problems = validate(wire.method, wire.path, res);
  expect(
    problems,
    `${wire.method} ${wire.path} → ${res.status} against the OpenAPI document`,
  ).toEqual([]);
  if (res.status >= 400) {
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    const body = JSON.parse(res.body) as { code: unknown; message: unknown; status: unknown };
    expect(body.status, 'Error body status equals the HTTP status').toBe(res.status);
    expect(typeof body.code).toBe('string');
    expect(typeof body.message).toBe('string');
  }
}

function checkExpectation(expected: Expectation, res: WireResponse): void {
  const context = `${res.status} ${res.body.slice(0, 300)}`;
  expect(res.status, context).toBe(expected.status);
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    const actual = res.headers[name.toLowerCase()];
    if (value === undefined) expect(actual, `header ${name} must be absent`).toBeUndefined();
    else if (value instanceof RegExp) expect(actual, `header ${name}`).toMatch(value);
    else expect(actual, `header ${name}`).toBe(value);
  }
  if (expected.bodyText !== undefined) expect(res.body).toBe(expected.bodyText);
  if (expected.body !== undefined) expect(JSON.parse(res.body)).toEqual(expected.body);
  if (expected.code !== undefined) {
    expect(JSON.parse(res.body), context).toMatchObject({
      code: expected.code,
      status: expected.status,
    });
  }
  for (const word of expected.mentions ?? [])
    expect(res.body, `error mentions ${word}`).toContain(word);
}

/** What a case runs against: a target, the case's context, the document to check answers by. */
interface CaseRig {
  readonly target: ConformanceTarget;
  readonly context: Omit<CaseContext, 'send'>;
  readonly openApiDocument: Readonly<Record<string, unknown>>;
  release(): Promise<void>;
}

async function inProcessRig(testCase: ConformanceCase, options: InProcess): Promise<CaseRig> {
  const fresh = await options.storage();
  try {
    for (const pet of testCase.seed?.pets ?? []) await fresh.createPet(pet);
    for (const order of testCase.seed?.orders ?? []) await fresh.createOrder(order);
    const { store, events } = storeForCase(testCase, fresh);
    const target = await options.serve(store);
    return {
      target,
      context: { storage: fresh, events },
      openApiDocument: store.openApiDocument,
      release: () => fresh.close(),
    };
  } catch (error) {
    await fresh.close();
    throw error;
  }
}

async function hostedRig(testCase: ConformanceCase, { host }: Hosted): Promise<CaseRig> {
  const hosted = await host.start({ caseName: testCase.name, mountPath: DEFAULT_API_PATH });
  for (const pet of testCase.seed?.pets ?? []) await hosted.storage.createPet(pet);
  for (const order of testCase.seed?.orders ?? []) await hosted.storage.createOrder(order);
  return {
    target: hosted,
    context: { storage: hosted.storage, events: hosted.events },
    openApiDocument: hosted.openApiDocument,
    release: async () => undefined,
  };
}

async function runCase(testCase: ConformanceCase, options: RunConformanceOptions): Promise<void> {
  const rig =
    'host' in options ? await hostedRig(testCase, options) : await inProcessRig(testCase, options);
  try {
    const validate = createResponseValidator(rig.openApiDocument);
    const send = async (wire: WireRequest) => {
      const res = await rig.target.send(wire);
      // Status 0: no answer came (the client hung up); there is nothing to check.
      if (res.status !== 0) checkInvariants(wire, res, validate);
      return res;
    };
    if ('run' in testCase) await testCase.run({ send, ...rig.context });
    else checkExpectation(testCase.expect, await send(testCase.request));
  } finally {
    try {
      await rig.target.close();
    } finally {
      await rig.release();
    }
  }
}

/**
 * Registers every conformance case as a vitest test against one target, and a
 * closing test that fails unless every case actually ran (none skipped, none
 * lost). There is deliberately no way to skip a case. Returns the registered names.
 */
export function runConformance(options: RunConformanceOptions): readonly string[] {
  const names = conformanceCases.map((testCase) => testCase.name);
  const known = options.knownDifferences ?? {};
  const unknown = Object.keys(known).filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new Error(`knownDifferences names no case: ${unknown.join('; ')}`);
  describe(`conformance: ${options.name}`, () => {
    const ran = new Set<string>();
    const body = (testCase: ConformanceCase) => () => {
      ran.add(testCase.name);
      return runCase(testCase, options);
    };
    for (const testCase of conformanceCases) {
      const reason = known[testCase.name];
      if (reason === undefined) it(testCase.name, body(testCase));
      else it.fails(`${testCase.name} [known difference: ${reason}]`, body(testCase));
    }
    // Last and sequential, so it runs after every case, under `sequence.concurrent` too.
    it.sequential('every conformance case ran', () => {
      expect(names.filter((name) => !ran.has(name))).toEqual([]);
      expect(ran.size).toBe(conformanceCases.length);
    });
  });
  return names;
}
