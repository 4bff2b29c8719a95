/**
 * The default cap on an answer's (response's) body, in bytes: far above any page the service
 * sends (100 pets). Not core's request-body limit.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * The body as text, read as it streams in, or `undefined` once it passes `maxBytes` (declared
 * or counted): then the stream is cancelled, so a huge or endless answer costs at most the cap.
 */
export async function readCapped(
  response: Response,
  maxBytes: number,
): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  const body = response.body;
  if (declared > maxBytes) {
    await body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
