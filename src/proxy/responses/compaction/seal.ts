// The compaction item's seal (docs/compaction.md "The sealed item"). A compaction item stands for the earlier
// conversation in every later request, so its content is the summary the model wrote; the client holds it, opaque,
// and must not be able to forge or alter it (it reaches the model as the conversation's own history). Sealed with
// AES-256-GCM: authenticated, so a changed byte, an item of another machine or one made before the key changed does
// not open. The key is 32 random bytes in the data directory, owner-only (0600 in the 0700 directory, as the owner's
// key: docs/security.md), made on first use and read again after a restart, so items sealed before it still open.
//
// Sealed text: "apc1." + base64url(12-byte nonce | ciphertext | 16-byte tag); the plaintext is JSON
// {v: 1, summary, model, created}. The prefix names the version, so a later format can be told apart.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const keyFileName = 'compaction-key';
const prefix = 'apc1.';
/** Bound to the purpose, so a ciphertext made with the same key for anything else never opens as a compaction. */
const associated = Buffer.from('assistant-proxy compaction item v1');

/** What a compaction item holds once opened. */
export interface CompactionContent {
  /** The model's summary of the conversation the item replaced. */
  summary: string;
  /** The model that wrote it (neutral id). */
  model: string;
  /** When it was made, ms since the epoch. */
  created: number;
}

export interface CompactionSeal {
  seal(content: CompactionContent): string;
  /** The content, or undefined when the text was not sealed here with this key (forged, altered, another machine). */
  open(sealed: string): CompactionContent | undefined;
}

/** The key of `dataDir`, made on first use (owner-only); a file of the wrong size is a fault of the owner's, not
 * silently replaced, since every item sealed with it would stop opening. */
export function loadCompactionKey(dataDir: string): Buffer {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = join(dataDir, keyFileName);
  try {
    const key = readFileSync(path);
    if (key.length !== 32) throw new Error(`the compaction key in the data directory is ${key.length} bytes, not 32`);
    if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = randomBytes(32);
  // 'wx': two proxies starting at once on one data directory never overwrite each other's key.
  try {
    writeFileSync(path, key, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadCompactionKey(dataDir);
    throw err;
  }
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  return key;
}

export function compactionSeal(key: Buffer): CompactionSeal {
  return {
    seal(content) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(associated);
      const plain = Buffer.from(JSON.stringify({ v: 1, ...content }), 'utf8');
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return prefix + Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64url');
    },
    open(sealed) {
      if (!sealed.startsWith(prefix)) return undefined;
      const raw = Buffer.from(sealed.slice(prefix.length), 'base64url');
      if (raw.length < 12 + 16 + 2) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAAD(associated);
        decipher.setAuthTag(raw.subarray(raw.length - 16));
        const plain = Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
        const value = JSON.parse(plain.toString('utf8')) as Partial<CompactionContent> & { v?: unknown };
        if (value.v !== 1 || typeof value.summary !== 'string') return undefined;
        return { summary: value.summary, model: String(value.model ?? ''), created: Number(value.created ?? 0) };
      } catch {
        return undefined;
      }
    },
  };
}
