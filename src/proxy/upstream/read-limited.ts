// The one bounded read of an upstream body that is not passed on (an error answer, an unexpected content type):
// enough to quote the upstream's message, never so much that a misbehaving upstream can fill the proxy's memory.

/** Bytes of an upstream error body that are read; the rest is dropped with the connection. */
export const errorBodyLimit = 64 * 1024;

interface DestroyableBody extends AsyncIterable<Uint8Array> {
  destroy?(): unknown;
}

/** The body as text, cut at `limit` bytes (the body is destroyed when it is longer). A failed read is thrown. */
export async function readLimited(body: DestroyableBody, limit = errorBodyLimit): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const piece = Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.length, limit - size));
    parts.push(piece);
    size += piece.length;
    if (size >= limit) {
      body.destroy?.();
      break;
    }
  }
  return Buffer.concat(parts).toString('utf8');
}
