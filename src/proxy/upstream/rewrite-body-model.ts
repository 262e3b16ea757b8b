// Public model ids carry the neutral prefix (docs/interface.md "Names", "Models"), and /api/models lists them that way,
// so a client that picks a model from the list (or names an alias) and sends it to /api/v1/messages must reach the
// provider's model; the route resolves the name once (models/model-catalog.ts) and this writes the result. The
// body is otherwise forwarded byte for byte, so instead of re-serialising it (which would reorder nothing but could
// change number formatting and whitespace), only the bytes of the top-level "model" string are replaced.
// The scan works on bytes: every JSON structural character is ASCII, and UTF-8 continuation bytes never equal one.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** End index (exclusive) of the string that starts at `start` (a quote). */
function stringEnd(buf: Buffer, start: number): number {
  for (let i = start + 1; i < buf.length; i++) {
    if (buf[i] === BACKSLASH) i++;
    else if (buf[i] === QUOTE) return i + 1;
  }
  return buf.length;
}

/** True when the bytes between `start` and `end` (a string's quotes) hold no escape: the text is the bytes. */
function plain(buf: Buffer, start: number, end: number): boolean {
  for (let i = start + 1; i < end - 1; i++) if (buf[i] === BACKSLASH) return false;
  return true;
}

/** The JSON string between `start` and `end` (its quotes included); undefined when it is not a valid one. */
function stringAt(buf: Buffer, start: number, end: number): string | undefined {
  // Most keys and model ids have no escape: their text is their bytes, without JSON.parse's copy and checks.
  if (end - start >= 2 && buf[end - 1] === QUOTE && plain(buf, start, end))
    return buf.toString('utf8', start + 1, end - 1);
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', start, end));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Byte span of the value of top-level member `key` when that value is a string (the last one, as JSON.parse). */
export function topLevelStringSpan(buf: Buffer, key: string): { start: number; end: number } | undefined {
  let depth = 0;
  let lastKey: string | undefined;
  let valueOf: string | undefined;
  let found: { start: number; end: number } | undefined;
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i];
    if (c === QUOTE) {
      const end = stringEnd(buf, i);
      if (depth === 1) {
        if (valueOf !== undefined) {
          if (valueOf === key) found = { start: i, end };
          valueOf = undefined;
        } else {
          lastKey = stringAt(buf, i, end);
        }
      }
      i = end - 1;
    } else if (c === 0x7b || c === 0x5b) {
      // { [
      if (depth === 1) valueOf = undefined;
      depth++;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (depth === 1 && c === 0x3a) {
      // :
      valueOf = lastKey;
      lastKey = undefined;
    } else if (depth === 1 && c === 0x2c) {
      // ,
      valueOf = undefined;
    }
  }
  return found;
}

/** The body with its top-level model id replaced by `model`; the same Buffer when nothing changes. */
export function rewriteBodyModel(raw: Buffer, mapped: string): Buffer {
  const span = topLevelStringSpan(raw, 'model');
  if (!span) return raw;
  const model = stringAt(raw, span.start, span.end);
  if (model === undefined || mapped === model) return raw;
  return Buffer.concat([
    raw.subarray(0, span.start),
    Buffer.from(JSON.stringify(mapped), 'utf8'),
    raw.subarray(span.end),
  ]);
}
