// Streams read with plain node:http, so that nothing between the socket and the clock buffers: time to first byte,
// the arrival of every content delta, and whether two deltas came in one socket read (the sign of a buffering hop).
// Events are parsed with eventsource-parser (docs/principles.md "Reading streams"), never by splitting on '\n'.

import { Agent, request } from 'node:http';
import { createParser } from 'eventsource-parser';
import { postOptions, summarize, type RequestSpec, type Summary } from './load.js';

/** native: `event: content_block_delta` ... `message_stop`; compat: data-only chunks ending with `[DONE]`. */
export type StreamKind = 'native' | 'compat';

export interface StreamRecord {
  status: number;
  startAt: number;
  headersAt?: number;
  endAt?: number;
  deltaTimes: number[];
  /** A native stream's text deltas: when the first came, and all their text. */
  textAt?: number;
  text?: string;
  /** Deltas that arrived in the same socket read as the delta before them. */
  coalesced: number;
  complete: boolean;
  error?: string;
}

function isDelta(kind: StreamKind, event: string | undefined, data: string): boolean {
  if (kind === 'native') return event === 'content_block_delta';
  if (data === '[DONE]' || !data.includes('"content"')) return false;
  try {
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: unknown } }> };
    const content = chunk.choices?.[0]?.delta?.content;
    return typeof content === 'string' && content.length > 0;
  } catch {
    return false;
  }
}

/** The text of a native content_block_delta's data when it is a text delta. */
function textOf(data: string): string | undefined {
  try {
    const delta = (JSON.parse(data) as { delta?: { type?: string; text?: string } }).delta;
    return delta?.type === 'text_delta' ? (delta.text ?? '') : undefined;
  } catch {
    return undefined;
  }
}

const isEnd = (kind: StreamKind, event: string | undefined, data: string): boolean =>
  kind === 'native' ? event === 'message_stop' : data === '[DONE]';

/** One streamed request, read to its end. Never rejects: failures are in the record. */
export function readStream(spec: RequestSpec, kind: StreamKind, agent: Agent, timeoutMs: number) {
  const rec: StreamRecord = { status: 0, startAt: performance.now(), deltaTimes: [], coalesced: 0, complete: false };
  return new Promise<StreamRecord>((resolve) => {
    let settled = false;
    const done = (error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      rec.endAt = performance.now();
      if (error && !rec.complete) rec.error = error;
      resolve(rec);
    };
    const timer = setTimeout(() => {
      req.destroy();
      done(`timed out after ${timeoutMs} ms`);
    }, timeoutMs);
    const req = request(postOptions(spec, agent), (res) => {
      rec.headersAt = performance.now();
      rec.status = res.statusCode ?? 0;
      if (rec.status !== 200) {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => done(`HTTP ${rec.status}: ${text.slice(0, 200)}`));
        res.on('error', (e) => done(e.message));
        return;
      }
      let [read, lastDeltaRead, now] = [0, -1, 0];
      const decoder = new TextDecoder();
      const parser = createParser({
        onEvent(ev) {
          if (ev.event === 'error') rec.error = `in-stream error: ${ev.data.slice(0, 200)}`;
          if (isDelta(kind, ev.event, ev.data)) {
            rec.deltaTimes.push(now);
            if (lastDeltaRead === read) rec.coalesced++;
            lastDeltaRead = read;
            const text = kind === 'native' ? textOf(ev.data) : undefined;
            if (text !== undefined) [rec.textAt, rec.text] = [rec.textAt ?? now, (rec.text ?? '') + text];
          }
          if (isEnd(kind, ev.event, ev.data)) rec.complete = true;
        },
      });
      res.on('data', (chunk: Buffer) => {
        now = performance.now();
        read++;
        parser.feed(decoder.decode(chunk, { stream: true }));
      });
      res.on('end', () => done(rec.complete ? undefined : 'stream ended without its final event'));
      res.on('error', (e) => done(e.message));
      res.on('aborted', () => done('connection aborted'));
    });
    req.on('error', (e) => done(e.message));
    req.end(spec.body);
  });
}

export interface StreamRunResult {
  streams: number;
  errors: number;
  firstError?: string;
  /** Response headers, from request start (ms). */
  ttfb: Summary;
  /** Between consecutive deltas of a stream (ms). */
  gap: Summary;
  /** |gap − pacing| (ms). */
  deviation: Summary;
  /** Share of deltas that arrived in the same read as the one before. */
  coalescedShare: number;
  /** The most streams that had their headers and had not yet ended at one moment. */
  maxOpen: number;
  records: StreamRecord[];
}

export function summarizeStreams(records: StreamRecord[], intervalMs: number): StreamRunResult {
  const [ttfb, gap, dev]: number[][] = [[], [], []];
  let [deltas, coalesced] = [0, 0];
  const failed = records.filter((r) => r.error || !r.complete);
  for (const r of records) {
    if (r.headersAt !== undefined) ttfb.push(r.headersAt - r.startAt);
    deltas += r.deltaTimes.length;
    coalesced += r.coalesced;
    for (let i = 1; i < r.deltaTimes.length; i++) {
      const g = r.deltaTimes[i] - r.deltaTimes[i - 1];
      gap.push(g);
      dev.push(Math.abs(g - intervalMs));
    }
  }
  // Sweep over open intervals [headersAt, endAt] for the largest number open at once.
  const edges: Array<[number, number]> = [];
  for (const r of records)
    if (r.headersAt !== undefined && r.endAt !== undefined) edges.push([r.headersAt, 1], [r.endAt, -1]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let [open, maxOpen] = [0, 0];
  for (const [, d] of edges) maxOpen = Math.max(maxOpen, (open += d));
  return {
    streams: records.length,
    errors: failed.length,
    firstError: failed[0]?.error ?? (failed[0] ? 'incomplete stream' : undefined),
    ttfb: summarize(ttfb),
    gap: summarize(gap),
    deviation: summarize(dev),
    coalescedShare: deltas ? coalesced / deltas : NaN,
    maxOpen,
    records,
  };
}

/**
 * `count` streams (default: `concurrency`), `concurrency` at a time, each read to its end; `intervalMs` is the
 * simulator's pacing between deltas, to compare gaps with.
 */
export async function runStreams(
  spec: RequestSpec,
  o: { kind: StreamKind; concurrency: number; count?: number; intervalMs: number; timeoutMs: number },
): Promise<StreamRunResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const records: StreamRecord[] = [];
  const count = o.count ?? o.concurrency;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next++ < count) records.push(await readStream(spec, o.kind, agent, o.timeoutMs));
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency, count) }, worker));
  agent.destroy();
  return summarizeStreams(records, o.intervalMs);
}

/** One native stream's time to its first text delta (ms), or why it has none (tool mode's workloads d and p). */
export async function ttftOnce(spec: RequestSpec, agent: Agent): Promise<number | string> {
  const rec = await readStream(spec, 'native', agent, 60_000);
  if (rec.error || !rec.complete || rec.deltaTimes.length === 0) return rec.error ?? 'no text delta';
  return rec.deltaTimes[0] - rec.startAt;
}
