import type { ErrorCode } from '../http/errors.js';
import type { AnyParameter, ValuesOf } from '../input/params.js';
import type { ResolvedOptions } from '../options/options.js';
import type { SchemaName } from '../schemas/schemas.js';
import type { HandlerResult, RequestContext } from './context.js';

/** What a row of the operation table (operations.ts) holds. */

export interface HeaderDoc {
  readonly description: string;
  readonly schema: Readonly<Record<string, unknown>>;
}

/**
 * A header the core puts on every answer of an operation once the caller is
 * authenticated (errors included): its value at run time, and its documentation.
 */
export interface OperationHeader {
  /** As documented; sent in lower case. */
  readonly name: string;
  readonly description: string;
  readonly value: (options: ResolvedOptions, publicPath: string) => string;
}

export interface Success {
  readonly status: 200 | 201;
  readonly description: string;
  /** The body's component schema; undefined for a JSON body without one. */
  readonly body: SchemaName | undefined;
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
}

/**
 * One row of the operation table: everything the router, the parameter reader
 * and the OpenAPI document know. The handler gets the values of `parameters`, typed.
 */
export interface OperationSpec<TParams extends readonly AnyParameter[] = readonly AnyParameter[]> {
  readonly method: 'GET' | 'POST';
  /** Below the base path, OpenAPI style: `/pets/{petId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  /** What the operation does, for the document's readers (a paragraph). */
  readonly description: string;
  readonly tags: readonly string[];
  /** Query and path parameters, in the order they are read (path ones in path order). */
  readonly parameters: TParams;
  /** Sync when nothing is waited for (a refused request): no trip through the microtask queue. */
  handler(context: RequestContext<ValuesOf<TParams>>): HandlerResult | Promise<HandlerResult>;
  /** Takes the Idempotency-Key header. */
  readonly idempotent?: true;
  readonly requestBody?: SchemaName;
  readonly success: Success;
  /** Every error this operation answers with; statuses and their headers follow from the codes. */
  readonly errors: readonly ErrorCode[];
  /** Answered without authentication. */
  readonly public?: true;
  /** Reported to onDeprecatedCall; `headers` say when it goes and what replaces it. */
  readonly deprecated?: true;
  readonly headers?: readonly OperationHeader[];
  /** Served only when this says so (default: always). */
  readonly enabled?: (options: ResolvedOptions) => boolean;
}
