/** A request as a client puts it on the wire, for the conformance suite. */
export interface WireRequest {
  readonly method: string;
  /** Full path with the base path and query: `/v1/pets?limit=5`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Bytes to send, or chunks sent one after another (no Content-Length: chunked). */
  readonly body?: string | Uint8Array | { readonly chunks: readonly Uint8Array[] };
}

export interface WireResponse {
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
