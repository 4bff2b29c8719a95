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

/** The methods an operation may have: those a JSON API needs (a HEAD is answered 405, as today). */
export type OperationMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A success with a JSON body: its component schema, or undefined for a body without one. */
interface SuccessWithBody {
  readonly status: 200 | 201 | 202;
  readonly description: string;
  readonly body: SchemaName | undefined;
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
}

/** A 204: no body, so no content type (the handler replies with an undefined body). */
interface NoContent {
  readonly status: 204;
  readonly description: string;
  readonly body?: undefined;
  readonly headers?: Readonly<Record<string, HeaderDoc>>;
}

export type Success = SuccessWithBody | NoContent;

/**
 * One row of the operation table: everything the router, the parameter reader
 * and the OpenAPI document know. The handler gets the values of `parameters`, typed.
 */
export interface OperationSpec<TParams extends readonly AnyParameter[] = readonly AnyParameter[]> {
  readonly method: OperationMethod;
  /** Below the mount path, OpenAPI style: `/pets/{petId}`. */
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
