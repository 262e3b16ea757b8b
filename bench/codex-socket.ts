// `npx tsx bench/codex-socket.ts`: what Codex's WebSocket transport saves against its HTTP fallback
// (docs/responses-socket.md, docs/benchmarks.md "Codex: socket against HTTP"). Replays the messages Codex 0.171
// sent in a recorded session (test/fixtures/codex-socket/direct.json: the prewarm, the first turn, the turn that
// carries the tool's output) against one proxy in direct mode with the provider simulator behind it, both ways in
// alternating rounds:
//   socket  the recorded messages on one WebSocket: each later turn names the previous response and sends only
//           its new items;
//   http    what the fallback sends: a POST per turn with the whole conversation so far.
// Reported: the client's bytes per later turn (the JSON text; the socket's permessage-deflate would shrink it
// further on the wire) and the time from a later turn's send to its first event, medians of the rounds, and their
// ratio. BENCH_ROUNDS sets the rounds (default 15).

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { startProxy } from '../test/helpers/proxy.js';
import { startSimulator, writeCliCredentials } from '../test/simulator/index.js';

type Item = Record<string, unknown>;
type Message = Item & { input: Item[] };

const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const fixture = JSON.parse(
  await readFile(new URL('../test/fixtures/codex-socket/direct.json', import.meta.url), 'utf8'),
) as { messages: Message[] };
const [prewarm, first, toolTurn] = fixture.messages.map(({ transport: _t, ...m }) => m as Message);

const dir = await mkdtemp(join(tmpdir(), 'bench-codex-socket-'));
const notes = join(dir, 'notes.txt');
await writeFile(notes, 'The launch code is BENCH.\n');
const sim = await startSimulator({ knobs: { agentToolLoop: { path: notes, answerPrefix: 'The file says:' } } });
const credentialsPath = await writeCliCredentials(dir, {
  accessToken: 'sk-ant-oat01-bench-socket-abcdef',
  refreshToken: 'sk-ant-ort01-bench-socket-abcdef',
  expiresAt: Date.now() + 3_600_000,
});
const proxy = await startProxy({
  apiBaseUrl: sim.url,
  credentialsPath,
  oauthTokenUrl: sim.cliTokenUrl,
  modes: ['direct'],
  logLevel: 'warn',
  rateLimitPerMinute: 100_000,
});
const base = `${proxy.url}/api/v1/responses`;

/** The tool output item of the recorded turn, answering the call the simulator made this time. */
function toolOutputFor(output: Item[]): Item[] {
  const call = output.find((o) => o.type === 'function_call');
  return toolTurn.input.map((i) => (i.type === 'function_call_output' ? { ...i, call_id: call?.call_id } : i));
}

async function socketSession(): Promise<{ bytes: number; firstMs: number }> {
  const ws = new WebSocket(base.replace(/^http/, 'ws'), {
    headers: { 'openai-beta': 'responses_websockets=2026-02-06' },
  });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const frames: Item[] = [];
  let waiter: (() => void) | undefined;
  ws.on('message', (d) => {
    frames.push(JSON.parse(String(d)) as Item);
    waiter?.();
  });
  const send = async (message: Item) => {
    const from = frames.length;
    const text = JSON.stringify(message);
    const sentAt = performance.now();
    let firstMs = -1;
    ws.send(text);
    for (;;) {
      if (firstMs < 0 && frames.length > from) firstMs = performance.now() - sentAt;
      const last = frames.at(-1);
      if (frames.length > from && (last?.type === 'response.completed' || last?.type === 'error')) break;
      await new Promise<void>((r) => (waiter = r));
    }
    if (frames.at(-1)?.type === 'error') throw new Error(JSON.stringify(frames.at(-1)));
    return { bytes: Buffer.byteLength(text), firstMs, response: frames.at(-1)!.response as Item };
  };
  const warm = await send(prewarm);
  const one = await send({ ...first, previous_response_id: warm.response.id });
  const output = one.response.output as Item[];
  const two = await send({ ...toolTurn, previous_response_id: one.response.id, input: toolOutputFor(output) });
  ws.close();
  return { bytes: two.bytes, firstMs: two.firstMs };
}

async function post(body: Item): Promise<{ bytes: number; firstMs: number; response: Item }> {
  const text = JSON.stringify(body);
  const sentAt = performance.now();
  const res = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });
  const reader = res.body!.getReader();
  let firstMs = -1;
  let all = '';
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (firstMs < 0) firstMs = performance.now() - sentAt;
    all += decoder.decode(value, { stream: true });
  }
  const completed = all
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Item)
    .find((e) => e.type === 'response.completed');
  if (!completed) throw new Error(`no response.completed: ${all.slice(0, 300)}`);
  return { bytes: Buffer.byteLength(text), firstMs, response: completed.response as Item };
}

async function httpSession(): Promise<{ bytes: number; firstMs: number }> {
  const strip = ({ type: _t, generate: _g, previous_response_id: _p, ...m }: Message) => m;
  const input = [...prewarm.input, ...first.input];
  const one = await post({ ...strip(first), input });
  const output = one.response.output as Item[];
  const two = await post({ ...strip(toolTurn), input: [...input, ...output, ...toolOutputFor(output)] });
  return { bytes: two.bytes, firstMs: two.firstMs };
}

try {
  const socket: Array<{ bytes: number; firstMs: number }> = [];
  const http: Array<{ bytes: number; firstMs: number }> = [];
  await socketSession(); // warm-up: the model catalog, the connection pool to the simulator
  await httpSession();
  for (let i = 0; i < rounds; i++) {
    // Alternating which goes first, so neither always runs on a machine the other has just warmed.
    if (i % 2 === 0) {
      socket.push(await socketSession());
      http.push(await httpSession());
    } else {
      http.push(await httpSession());
      socket.push(await socketSession());
    }
  }
  const row = (name: string, s: number, h: number, unit: string) =>
    `| ${name} | ${s.toFixed(unit === 'B' ? 0 : 1)} ${unit} | ${h.toFixed(unit === 'B' ? 0 : 1)} ${unit} | ${(s / h).toFixed(2)} |`;
  const sBytes = median(socket.map((r) => r.bytes));
  const hBytes = median(http.map((r) => r.bytes));
  const sFirst = median(socket.map((r) => r.firstMs));
  const hFirst = median(http.map((r) => r.firstMs));
  process.stdout.write(
    [
      `Codex 0.171's recorded session replayed, ${rounds} rounds each, direct mode, provider simulator; medians.`,
      '| later turn (the tool output) | socket | HTTP fallback | socket / HTTP |',
      '|---|---|---|---|',
      row("client's bytes", sBytes, hBytes, 'B'),
      row('time to first event', sFirst, hFirst, 'ms'),
      '',
    ].join('\n'),
  );
} finally {
  await proxy.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
