/** Header values as Node and most frameworks give them; names in lower case. */
export type RequestHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * A request body in whichever form the host has it. The core reads at most
 * `maxBodyBytes + 1` bytes of a stream and then stops pulling from it. A
 * stream that fails while read means the client went away: the response is
 * then `aborted` (see `PetStoreResponse`).
 */
export type RequestBody =
  | undefined
  | string
  | Uint8Array
  | AsyncIterable<Uint8Array>
  /** A host that reads its own stream whole, when the core asks (cheaper than chunk by chunk). */
  | HostReadBody
  /** The host already parsed the JSON (for example `express.json()` ran upstream). */
  | ParsedBody
  /** The host's own body parser rejected the body before the core saw it. */
  | UnreadableBody;

/**
 * A body the host reads itself, whole, once the core asks for it (after authentication): on a
 * host whose stream hands over chunks by events, that costs no promise per chunk.
 * `read(maxBytes)` resolves with the body: text when the host found it valid UTF-8 (with a
 * leading byte order mark dropped, as a UTF-8 decoder drops it), else its bytes; or with
 * `too_large` as soon as more than `maxBytes` arrived, the rest left unread. It rejects when the
 * client went away.
 */
export interface HostReadBody {
  readonly kind: 'read';
  read(maxBytes: number): Promise<string | Uint8Array | 'too_large'>;
}

export interface ParsedBody {
  readonly kind: 'parsed';
  readonly value: unknown;
  /** Size of the body on the wire, when known (Content-Length). */
  readonly byteLength?: number | undefined;
}

export interface UnreadableBody {
  readonly kind: 'unreadable';
  /** `aborted`: the client went away before the body was read (the request ends without an answer). */
  readonly reason: 'malformed' | 'too_large' | 'aborted';
}

export interface PetStoreRequest {
  readonly method: string;
  /** Path below the mount point, starting with `/`: `/pets`, `/pets/7`. Not decoded. */
  readonly path: string;
  /**
   * Raw query string without the leading `?` (may be empty), exactly as sent:
   * values are judged undecoded, so `limit=%31` is refused, not read as 1.
   */
  readonly query?: string | undefined;
  readonly headers: RequestHeaders;
  readonly body?: RequestBody;
  /**
   * The public base of links for this request (`Location`, `Link`): where the
   * API is, as the client sees it (`/v1`, `/api/pets-v1`). Adapters set it from
   * their mount. Defaults to the `publicPath` option. Must be a URL path (see
   * the option); anything else answers 500 and goes to `onError`.
   */
  readonly publicPath?: string | undefined;
}

/**
 * What an adapter mounts: anything that answers a core request. A pet store is one (`PetStore`);
 * the API reference page (`@petstore/api-reference`) is another, served through the same adapters.
 */
export interface Handler {
  /** Never rejects: every failure is an answer. */
  handle(request: PetStoreRequest): Promise<HandlerResponse>;
}

/** A handler's answer: a pet store's (`PetStoreResponse`), or bytes such as a script's. */
export interface HandlerResponse extends Omit<PetStoreResponse, 'body'> {
  /** Text, bytes, or undefined for no body; the adapter adds `content-length` when there is one. */
  readonly body: string | Uint8Array | undefined;
}

export interface PetStoreResponse {
  readonly status: number;
  /** Lower-case names; every response has `content-type` when it has a body. */
  readonly headers: Readonly<Record<string, string>>;
  /** Serialised JSON, or undefined for no body. */
  readonly body: string | undefined;
  /**
   * The client went away while its body was read: write nothing (there is no
   * one to answer) and release the connection. `status` is then 499, nginx's
   * "client closed request", for logs only.
   */
  readonly aborted?: true | undefined;
}
