import type {
  DeprecatedCallEvent,
  ErrorEvent,
  OrderInput,
  PetInput,
  PetStorage,
  PetStoreOptions,
  ResponseEvent,
} from '@petstore/core';
import type { WireRequest, WireResponse } from '../wire.js';

/** Store options a case may set; the runner supplies the storage. */
export type CaseOptions = Partial<Omit<PetStoreOptions, 'storage'>>;

export interface CaseSeed {
  readonly pets?: readonly PetInput[];
  readonly orders?: readonly OrderInput[];
}

/** `undefined` as a header expectation means "must be absent". */
export type HeaderExpectation = string | RegExp | undefined;

export interface Expectation {
  readonly status: number;
  readonly headers?: Readonly<Record<string, HeaderExpectation>>;
  /** Deep-equal to the parsed JSON body (vitest asymmetric matchers allowed). */
  readonly body?: unknown;
  /** The exact body text: checks key order and serialisation too. */
  readonly bodyText?: string;
  /** Shorthand for error answers: `code` and `status` in the Error body. */
  readonly code?: string;
  /** Substrings the error message (or details) must mention, such as the offending field. */
  readonly mentions?: readonly string[];
}

/** What the store's hooks reported during one case (when the case sets `recordHooks`). */
export interface HookEvents {
  readonly responses: readonly ResponseEvent[];
  readonly deprecatedCalls: readonly DeprecatedCallEvent[];
  readonly errors: readonly ErrorEvent[];
}

export interface CaseContext {
  /** Sends through the target; every answer is checked against the OpenAPI document and the Error rules. */
  send(request: WireRequest): Promise<WireResponse>;
  /** The case's fresh storage (before `wrapStorage`): seed it, or check what was stored. */
  readonly storage: PetStorage;
  /** This case's own hook events, never shared with another case. */
  readonly events: HookEvents;
}

interface CaseBase {
  /** Unique; also the vitest test name. */
  readonly name: string;
  /** The rule of the contract this case checks. */
  readonly rule: string;
  readonly options?: CaseOptions;
  /** Install hooks that record into `events`; hooks in `options` replace them one by one. */
  readonly recordHooks?: true;
  readonly seed?: CaseSeed;
  /** Wraps the fresh storage, for cases about storage failures. */
  readonly wrapStorage?: (storage: PetStorage) => PetStorage;
}

export interface TableCase extends CaseBase {
  readonly request: WireRequest;
  readonly expect: Expectation;
}

export interface ScenarioCase extends CaseBase {
  readonly run: (context: CaseContext) => Promise<void>;
}

export type ConformanceCase = TableCase | ScenarioCase;
