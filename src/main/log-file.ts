// The desktop app's log file. An app started from a desktop has no terminal, so its structured log (the same
// pino lines `npm run serve` prints) also goes to <userData>/logs/assistant-proxy.log, which the window's "Open
// log" button shows. Plain Node, so it is tested without Electron. The file is rotated at start-up once it passes
// a size (one previous file kept), so it cannot grow without bound over months of use.

import { mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pino, type DestinationStream } from 'pino';

export interface AppLog {
  path: string;
  /** stdout and the file together, for createLogger(). */
  destination: DestinationStream;
}

export const logFileName = 'assistant-proxy.log';

/** Renames the log to `.1` (replacing an older one) when it is larger than maxBytes. Returns whether it did. */
export function rotateIfLarge(path: string, maxBytes: number): boolean {
  try {
    if (statSync(path).size <= maxBytes) return false;
  } catch {
    return false; // no file yet
  }
  renameSync(path, `${path}.1`);
  return true;
}

export function openAppLog(dir: string, opts: { maxBytes?: number; toStdout?: boolean } = {}): AppLog {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, logFileName);
  rotateIfLarge(path, opts.maxBytes ?? 10 * 1024 * 1024);
  // Opened here, synchronously: an asynchronous open could still be pending when a short-lived app (a second
  // instance, a test) has already quit and its folder is gone. Writes stay asynchronous.
  const file = pino.destination({ dest: openSync(path, 'a', 0o600), sync: false });
  const streams: pino.StreamEntry[] = [{ level: 'trace', stream: file }];
  if (opts.toStdout !== false) streams.push({ level: 'trace', stream: process.stdout });
  return { path, destination: pino.multistream(streams) };
}
