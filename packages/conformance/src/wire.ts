/** A request as a client puts it on the wire, for the conformance suite. */
export interface WireRequest {
  readonly method: string;
  /** Full path with the mount path and query: `/v1/pets?limit=5`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Bytes to send, or chunks sent one after another (no Content-Length: chunked). */
  readonly body?:
    | string
    | Uint8Array
    | {
        readonly chunks: readonly Uint8Array[];
        /** When given: after the chunks, wait for this, then hang up without finishing the body. */
        readonly hangUpAfter?: PromiseLike<unknown>;
      };
}

export interface WireResponse {
  /** 0: the connection ended without an answer (a request that hung up). */
  readonly status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** A running server (or the core itself) that the conformance suite can talk to. */
export interface ConformanceTarget {
  send(request: WireRequest): Promise<WireResponse>;
  close(): Promise<void>;
}
