// Structured logs with pino. Secrets never reach a log line: request headers that carry credentials are
// redacted by path, and every line is passed through redactSecrets() (redact.ts) on its way to the destination,
// so a key in an error message or a CLI line is caught wherever it was logged from. A LogTap
// attached to the logger keeps the most recent lines in memory for the desktop window's live log.

import { pino, type Logger, type DestinationStream } from 'pino';
import { credentialHeaderList, redactSecrets } from './redact.js';

export type { Logger };

/** pino's mark of a destination that reads each line's level and object (a multistream routes by level). */
const needsMetadata = Symbol.for('pino.metadata');
const metadataKeys = ['lastLevel', 'lastObj', 'lastMsg', 'lastTime', 'lastLogger'] as const;

/** `destination` behind redactSecrets(): one scan per line, so no caller has to remember it. */
function redactingDestination(destination: DestinationStream): DestinationStream {
  const d = destination as DestinationStream & {
    flush?(cb?: (err?: Error) => void): void;
    flushSync?(): void;
  } & Record<PropertyKey, unknown>;
  // A multistream (the desktop app's stdout + log file) picks its streams by the line's level, which pino sets on
  // the destination it writes to: the wrapper asks for it and hands it on, or the multistream would drop every line.
  const wantsMetadata = d[needsMetadata] === true;
  const wrapper: DestinationStream & Record<PropertyKey, unknown> = {
    write(line: string) {
      if (wantsMetadata) for (const key of metadataKeys) d[key] = wrapper[key];
      d.write(redactSecrets(line));
    },
    // pino's logger.flush() and its exit handling call these when the destination has them (sonic-boom does).
    ...(d.flush ? { flush: (cb?: (err?: Error) => void) => d.flush!(cb) } : {}),
    ...(d.flushSync ? { flushSync: () => d.flushSync!() } : {}),
  };
  if (wantsMetadata) wrapper[needsMetadata] = true;
  return wrapper;
}

const headerPaths = (prefix: string) => credentialHeaderList.map((h) => `${prefix}[${JSON.stringify(h)}]`);

const redactPaths = [
  ...headerPaths('req.headers'),
  ...headerPaths('headers'),
  'res.headers["set-cookie"]',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  'accessKey',
  '*.accessKey',
];

/** A logger writing to `destination` (stdout by default) and, when given, to `tap` as well. */
export function createLogger(level: string, destination?: DestinationStream, tap?: LogTap): Logger {
  const dest = redactingDestination(destination ?? pino.destination(1));
  const out = tap
    ? pino.multistream([
        { level: 'trace', stream: dest },
        { level: 'trace', stream: tap },
      ])
    : dest;
  return pino(
    {
      level,
      base: { service: 'assistant-proxy' },
      redact: { paths: redactPaths, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    out,
  );
}

/** One structured log line as the window shows it; `line` is the JSON pino wrote (already redacted). */
export interface LogLine {
  /** Increases by one per line for the life of the tap, so a reader can ask for what came after the last it saw. */
  seq: number;
  time: string;
  level: LogLevelName;
  msg: string;
  line: string;
}

export type LogLevelName = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

export interface LogPage {
  lines: LogLine[];
  /** Pass as `sinceSeq` next time. */
  nextSeq: number;
  /** Lines that fell out of the ring before this reader asked for them. */
  missed: number;
}

const levelNames: Record<number, LogLevelName> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/**
 * A bounded in-memory copy of the most recent log lines, for the window's live log (docs/desktop.md). It is a
 * pino destination, so it receives the lines after pino's redaction; free text is passed through redactSecrets()
 * once more, so a token that reached a message by mistake is not kept here either. Memory is bounded by
 * `capacity` lines of at most `maxLineChars` characters each.
 */
export class LogTap {
  private readonly ring: LogLine[] = [];
  private seq = 0;
  private readonly listeners = new Set<(line: LogLine) => void>();

  constructor(
    readonly capacity = 1000,
    private readonly maxLineChars = 8000,
  ) {}

  /** pino's DestinationStream: one serialised line per call. */
  write(chunk: string): void {
    for (const raw of chunk.split('\n')) {
      if (raw.trim() === '') continue;
      let text = redactSecrets(raw);
      if (text.length > this.maxLineChars) text = `${text.slice(0, this.maxLineChars)}…`;
      let parsed: { time?: unknown; level?: unknown; msg?: unknown } = {};
      try {
        parsed = JSON.parse(raw) as typeof parsed;
      } catch {
        /* not JSON (a pretty printer upstream): kept as text */
      }
      const line: LogLine = {
        seq: ++this.seq,
        time: typeof parsed.time === 'string' ? parsed.time : new Date().toISOString(),
        level:
          (typeof parsed.level === 'number' ? levelNames[parsed.level] : undefined) ??
          (typeof parsed.level === 'string' && Object.values(levelNames).includes(parsed.level as LogLevelName)
            ? (parsed.level as LogLevelName)
            : 'info'),
        msg: typeof parsed.msg === 'string' ? redactSecrets(parsed.msg) : '',
        line: text,
      };
      this.ring.push(line);
      if (this.ring.length > this.capacity) this.ring.shift();
      for (const listener of this.listeners) {
        try {
          listener(line);
        } catch {
          /* a broken listener must not break logging */
        }
      }
    }
  }

  /** Lines after `sinceSeq` (0: everything still held), oldest first. */
  since(sinceSeq: number, limit = this.capacity): LogPage {
    const from = Number.isFinite(sinceSeq) && sinceSeq > 0 ? sinceSeq : 0;
    const first = this.ring[0]?.seq ?? this.seq + 1;
    const missed = Math.max(0, first - from - 1);
    const lines = this.ring.filter((l) => l.seq > from).slice(-Math.max(1, limit));
    return { lines, nextSeq: this.seq, missed: from === 0 ? 0 : missed };
  }

  subscribe(listener: (line: LogLine) => void): () => void {
    this.listeners.add(listener);
    return () => this.unsubscribe(listener);
  }

  unsubscribe(listener: (line: LogLine) => void): void {
    this.listeners.delete(listener);
  }
}
