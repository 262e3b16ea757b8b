// The kept Responses (docs/responses-store.md): what `previous_response_id` names, and what GET and DELETE
// /responses/{id} read. The Responses API keeps a response unless the request says `store: false`; a chained
// request's input is the earlier responses' input and output plus its new items (responses/chain.ts).
// Rules, each for a reason:
// - one owner-only file per response (0600 in a 0700 directory, `<dataDir>/responses/`): a response is a
//   conversation, and the id is all another local process would need to read it back, so ids are 192 random bits;
// - kept across a restart (a client chains to a response it got before the proxy restarted), for a bounded time
//   (`maxAgeMs`) and size (`maxBytes`, oldest first);
// - an id is checked against its shape before it becomes a path (no traversal);
// - a record holds only its own new input and output and the id it chained to, so a long session costs its own
//   size once, not the sum of its prefixes; the chain is walked at read time.

import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One kept response: what its request added to the conversation, what it answered, and the response object. */
export interface StoredResponse {
  id: string;
  /** Unix ms. */
  createdAt: number;
  /** The response this one continued, if any. */
  previous: string | null;
  /** The request's own new input items (a string input is kept as one user message). */
  input: unknown[];
  /** The answer's output items. */
  output: unknown[];
  /** The response object as the client received it (GET /responses/{id}). */
  response: Record<string, unknown>;
}

/** Where a chain is looked up: the store, and on a socket the connection's own responses first. */
export interface ResponseLookup {
  get(id: string): Promise<StoredResponse | undefined>;
}

interface ResponseStoreOptions {
  dir: string;
  maxAgeMs: number;
  maxBytes: number;
  now?: () => number;
  warn?: (fields: Record<string, unknown>, message: string) => void;
}

const idPattern = /^resp_[0-9a-f]{48}$/;

/** An unguessable response id: 192 random bits. */
export function newResponseId(): string {
  return `resp_${randomBytes(24).toString('hex')}`;
}

export function isResponseId(id: string): boolean {
  return idPattern.test(id);
}

interface Entry {
  size: number;
  createdAt: number;
}

/** The kept responses of one data directory. */
export class ResponseStore implements ResponseLookup {
  /** Every kept id, oldest first (insertion order), with its size: the bounds are kept without reading files. */
  private readonly index = new Map<string, Entry>();
  /** Records written or read in this run, newest last, up to `cacheBytes`: a chain is walked without the disk. */
  private readonly cache = new Map<string, StoredResponse>();
  private cachedBytes = 0;
  /** Records whose file is still being written: readable at once, whatever the cache holds. */
  private readonly writing = new Map<string, StoredResponse>();
  private total = 0;
  private readonly now: () => number;
  private ready = false;

  constructor(private readonly opts: ResponseStoreOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** The directory, owner-only, and the index of what a previous run kept (read once, on first use). */
  private open(): void {
    if (this.ready) return;
    this.ready = true;
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') chmodSync(this.opts.dir, 0o700);
    const found: Array<[string, Entry]> = [];
    for (const name of readdirSync(this.opts.dir)) {
      const id = name.endsWith('.json') ? name.slice(0, -5) : '';
      if (!isResponseId(id)) continue;
      try {
        const st = statSync(join(this.opts.dir, name));
        found.push([id, { size: st.size, createdAt: st.mtimeMs }]);
      } catch {
        // removed meanwhile
      }
    }
    found.sort((a, b) => a[1].createdAt - b[1].createdAt);
    for (const [id, entry] of found) this.addIndex(id, entry);
    this.sweep();
  }

  private path(id: string): string {
    return join(this.opts.dir, `${id}.json`);
  }

  private addIndex(id: string, entry: Entry): void {
    this.index.set(id, entry);
    this.total += entry.size;
  }

  private remember(record: StoredResponse, size: number): void {
    const cap = Math.max(1, Math.floor(this.opts.maxBytes / 4));
    this.cache.set(record.id, record);
    this.cachedBytes += size;
    for (const [id] of this.cache) {
      if (this.cachedBytes <= cap) break;
      this.forgetCached(id);
    }
  }

  private forgetCached(id: string): void {
    if (!this.cache.delete(id)) return;
    this.cachedBytes -= this.index.get(id)?.size ?? 0;
  }

  /** Ends what is past its time, then the oldest until the rest fits in `maxBytes`. */
  private sweep(): void {
    const oldest = this.now() - this.opts.maxAgeMs;
    for (const [id, entry] of this.index) {
      if (entry.createdAt >= oldest && this.total <= this.opts.maxBytes) break;
      this.drop(id);
    }
  }

  private drop(id: string): boolean {
    const entry = this.index.get(id);
    if (!entry) return false;
    this.forgetCached(id);
    this.writing.delete(id);
    this.index.delete(id);
    this.total -= entry.size;
    rm(this.path(id), { force: true }).catch((err: Error) =>
      this.opts.warn?.({ err: err.message }, 'a kept response could not be removed'),
    );
    return true;
  }

  /** Keeps a response; the file is written in the background, the record is readable at once. */
  put(record: StoredResponse): void {
    if (!isResponseId(record.id)) return;
    this.open();
    const text = JSON.stringify(record);
    const size = Buffer.byteLength(text);
    this.addIndex(record.id, { size, createdAt: record.createdAt });
    this.remember(record, size);
    this.writing.set(record.id, record);
    this.sweep();
    writeFile(this.path(record.id), text, { mode: 0o600, flag: 'wx' })
      .catch((err: Error) =>
        this.opts.warn?.({ err: err.message }, 'a response could not be kept on disk; it is kept for this run only'),
      )
      .finally(() => {
        // Dropped while its file was written (over the size, or deleted): the file is removed now it exists.
        if (this.writing.delete(record.id) || this.index.has(record.id)) return;
        rm(this.path(record.id), { force: true }).catch(() => undefined);
      });
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    if (!isResponseId(id)) return undefined;
    this.open();
    const entry = this.index.get(id);
    if (!entry) return undefined;
    if (entry.createdAt < this.now() - this.opts.maxAgeMs) {
      this.drop(id);
      return undefined;
    }
    const cached = this.cache.get(id) ?? this.writing.get(id);
    if (cached) return cached;
    try {
      const record = JSON.parse(await readFile(this.path(id), 'utf8')) as StoredResponse;
      if (record.id !== id) return undefined;
      this.remember(record, entry.size);
      return record;
    } catch {
      return undefined;
    }
  }

  /** True when a kept response was removed. */
  delete(id: string): boolean {
    if (!isResponseId(id)) return false;
    this.open();
    return this.drop(id);
  }

  /** How many responses are kept and their bytes (health and tests). */
  stats(): { count: number; bytes: number } {
    this.open();
    return { count: this.index.size, bytes: this.total };
  }
}

/** A connection's own responses (a socket's, `store: false` included): kept in memory until it closes. */
export class ConnectionResponses implements ResponseLookup {
  private readonly records = new Map<string, StoredResponse>();

  constructor(
    private readonly store: ResponseLookup,
    private readonly maxRecords = 256,
  ) {}

  put(record: StoredResponse): void {
    this.records.set(record.id, record);
    for (const [id] of this.records) {
      if (this.records.size <= this.maxRecords) break;
      this.records.delete(id);
    }
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    return this.records.get(id) ?? this.store.get(id);
  }
}
