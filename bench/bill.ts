// What the provider bills a chat, as the simulator bills it (docs/testing.md): the user turns of (w) (and the requests
// of (o) and (x)), one streamed native chat with its time to first text, a conversation of such chats with the bill
// of each turn, and weighted input tokens (uncached input + 5-minute writes × 1.25 + 1-hour writes × 2 + reads × 0.1).

import { Agent } from 'node:http';
import { baseKnobs, nativeHeaders, type Bench } from './context.js';
import { sleep } from './servers.js';
import type { BillEntry } from './simulator-process.js';
import { readStream } from './stream-probe.js';

export const reply = 'Hello from the simulator, answering this turn.';

/** The ~3 KB user turn i (0-based): distinct text each turn, as a user pasting parts of a document would send. */
export function userTurn(i: number): string {
  const lines = [
    `Turn ${i + 1}. Here is the next part of the design notes; keep it in mind for what I ask at the end.`,
  ];
  for (let n = 1; lines.join('\n').length < 2950; n++) {
    lines.push(
      `${i + 1}.${n} The proxy keeps one process per conversation, reads each turn once, and answers from the cache where it can.`,
    );
  }
  lines.push('Summarise the new part in one sentence.');
  return lines.join('\n');
}

/** Eight earlier turns, each answered "ok": the history of the request whose CPU (o) and (x) measure. */
export const eightTurns: Message[] = Array.from({ length: 8 }, (_, i): Message[] => [
  { role: 'user', content: userTurn(i) },
  { role: 'assistant', content: 'ok' },
]).flat();

/** Eight tools that take nothing, in the chat completions form, and in the Responses form. */
export const chatTools = Array.from({ length: 8 }, (_, i) => ({
  type: 'function',
  function: { name: `tool_${i}`, description: `Tool ${i}`, parameters: { type: 'object', properties: {} } },
}));
export const responsesTools = chatTools.map((t) => ({ type: 'function', ...t.function }));

/** Weighted input tokens of a bill (the formula above). */
export const sum = (bill: BillEntry[]): number =>
  bill.reduce(
    (n, { usage: u }) =>
      n +
      u.input_tokens +
      1.25 * u.cache_creation.ephemeral_5m_input_tokens +
      2 * u.cache_creation.ephemeral_1h_input_tokens +
      0.1 * u.cache_read_input_tokens,
    0,
  );

/** Share of the prompt read from the cache over the bill's requests. */
export function readShare(bill: BillEntry[]): number {
  const read = bill.reduce((n, e) => n + e.usage.cache_read_input_tokens, 0);
  const all = bill.reduce(
    (n, e) => n + e.usage.input_tokens + e.usage.cache_creation_input_tokens + e.usage.cache_read_input_tokens,
    0,
  );
  return all ? (read / all) * 100 : NaN;
}

export type Message = { role: 'user' | 'assistant'; content: unknown };

const agent = new Agent({ keepAlive: true });

/** One streamed native chat: time to the first text delta, and the answer's text (stream-probe.ts reads it). */
export async function chat(base: string, path: string, model: string, messages: Message[]) {
  // max_tokens well above the CLI's minimum thinking budget, so the provider's refusal of a budget not below
  // max_tokens is not what is measured here.
  const body = JSON.stringify({ model, max_tokens: 4096, stream: true, messages });
  const rec = await readStream({ base, path, headers: nativeHeaders, body }, 'native', agent, 120_000);
  const ttftMs = rec.textAt === undefined ? undefined : rec.textAt - rec.startAt;
  return { ttftMs, text: rec.text ?? '', error: rec.error ?? (rec.text ? undefined : 'no text') };
}

/** The CLI's requests of one chat may trail its answer by a moment (the CLI writes its result first). */
export async function billAfter(b: Bench): Promise<BillEntry[]> {
  await sleep(200);
  return b.sim.takeBill();
}

export async function freshSimulator(b: Bench): Promise<void> {
  await b.sim.reset();
  await b.sim.setKnobs({ ...baseKnobs(), tokenRule: 'bytes', answerTools: false, replyText: reply });
}

export interface Conversation {
  bills: BillEntry[][];
  ttft: Array<number | undefined>;
  errors: number;
  firstError?: string;
}

/**
 * Turns `from` to `to - 1` of a conversation, each sent with the whole history, as chat clients do, through the
 * base URL `baseOf(i)` gives; `marked` puts the client's own cache breakpoint on its newest turn (direct mode).
 */
export async function converse(
  b: Bench,
  o: { path: string; model: string; marked?: boolean; baseOf: (i: number) => string },
  turns: [number, number],
  conv: Conversation = { bills: [], ttft: [], errors: 0 },
  history: Message[] = [],
): Promise<Conversation> {
  for (let i = turns[0]; i < turns[1]; i++) {
    const turn = o.marked ? [{ type: 'text', text: userTurn(i), cache_control: { type: 'ephemeral' } }] : userTurn(i);
    const r = await chat(o.baseOf(i), o.path, o.model, [...history, { role: 'user', content: turn }]);
    conv.bills.push(await billAfter(b));
    conv.ttft.push(r.ttftMs);
    if (r.error) {
      conv.errors++;
      conv.firstError ??= `turn ${i + 1}: ${r.error}`;
    }
    history.push({ role: 'user', content: userTurn(i) }, { role: 'assistant', content: r.text || reply });
  }
  return conv;
}
