// (x) Direct mode's translated routes from the provider's cache (docs/direct-mode.md "The prompt cache"): the same
// conversations with the proxy's cache marks (proxy col.) and without (direct col.), billed by the simulator, and a
// translated request's CPU both ways (docs/benchmarks.md "What is measured" lists them).

import { performance } from 'node:perf_hooks';
import { withCacheMarks } from '../src/proxy/modes/direct/cache-marks.js';
import { defaultProfile } from '../src/proxy/profile.js';
import type { NativeRequest } from '../src/proxy/formats/native.js';
import { chatTools, eightTurns, freshSimulator, readShare, responsesTools, sum, userTurn } from './bill.js';
import { nativeHeaders, neutralModel, withProxy, type Bench } from './context.js';
import { cpuPerCall } from './procfs.js';
import { pair, rowsOf, type Metric } from './report.js';
import { freePort, type ProxyProcess } from './servers.js';
import type { BillEntry } from './simulator-process.js';

const system = Array.from({ length: 320 }, (_, i) => `Rule ${i}: keep the change small and tested.`).join('\n');

type Turn = (base: string, ollama: string, history: unknown[], i: number, previous?: string) => Promise<string>;

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: nativeHeaders, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(json).slice(0, 200)}`);
  return json;
}

/** A chat completions body of the conversation so far, after the system prompt; with the tools unless told not. */
const chatBody = (history: unknown[], withTools = true) => ({
  model: neutralModel,
  messages: [{ role: 'system', content: system }, ...history],
  ...(withTools ? { tools: chatTools } : {}),
});
/** A Responses body: the system prompt as instructions, the tools in that API's form. */
const responsesBody = (input: unknown, more: Record<string, unknown> = {}) => ({
  model: neutralModel,
  instructions: system,
  input,
  tools: responsesTools,
  ...more,
});

/** Each translated route's turn: sends the conversation so far and the new user turn, returns the answer's id. */
const routes: Record<string, Turn> = {
  'chat completions': async (base, _o, history, i) => {
    history.push({ role: 'user', content: userTurn(i) });
    const r = await post(`${base}/api/v1/chat/completions`, chatBody(history));
    history.push((r.choices as Array<{ message: unknown }>)[0].message);
    return String(r.id);
  },
  'Responses, the whole input each turn': async (base, _o, history, i) => {
    history.push({ role: 'user', content: userTurn(i) });
    const r = await post(`${base}/api/v1/responses`, responsesBody(history, { store: false }));
    history.push({ role: 'assistant', content: String(r.output_text ?? 'ok') });
    return String(r.id);
  },
  'Responses, chained by previous_response_id': async (base, _o, _h, i, previous) => {
    const more = previous ? { previous_response_id: previous } : {};
    return String((await post(`${base}/api/v1/responses`, responsesBody(userTurn(i), more))).id);
  },
  'Ollama /api/chat': async (_b, ollama, history, i) => {
    history.push({ role: 'user', content: userTurn(i) });
    const r = await post(`${ollama}/api/chat`, { ...chatBody(history, false), stream: false });
    history.push(r.message);
    return String(r.created_at);
  },
};

/** The agent loop's step: 12 parallel tool calls and their results added each time, through chat completions. */
const agentStep: Turn = async (base, _o, history, step) => {
  if (history.length === 0) history.push({ role: 'user', content: userTurn(0) });
  await post(`${base}/api/v1/chat/completions`, chatBody(history));
  const calls = Array.from({ length: 12 }, (_, k) => ({
    id: `c${step}_${k}`,
    type: 'function',
    function: { name: `tool_${k % 8}`, arguments: '{}' },
  }));
  history.push({ role: 'assistant', content: null, tool_calls: calls });
  for (const c of calls) history.push({ role: 'tool', tool_call_id: c.id, content: `output of ${c.id} `.repeat(40) });
  return '';
};

/** A one-off request: the system prompt and one question, no tools. */
const oneOff: Turn = async (base, _o, _h, i) => {
  await post(
    `${base}/api/v1/chat/completions`,
    chatBody([{ role: 'user', content: `Question ${i}: say hello.` }], false),
  );
  return '';
};

interface Hop {
  proxy: ProxyProcess;
  ollama: string;
}

/** A proxy with cache marks on or off, and its Ollama listener, for `use`. */
async function withHop<T>(b: Bench, cache: 'on' | 'off', use: (hop: Hop) => Promise<T>): Promise<T> {
  const port = await freePort();
  const env = { ...b.proxyOptions.env, DIRECT_PROMPT_CACHE: cache, OLLAMA_PORT: String(port), OLLAMA_MODE: 'direct' };
  return withProxy(b, { env }, (proxy) => use({ proxy, ollama: `http://127.0.0.1:${port}` }));
}

/** One conversation of `turns` through a hop, on a fresh cache; its bill. */
async function billOf(b: Bench, hop: Hop, turn: Turn, turns: number): Promise<BillEntry[]> {
  await freshSimulator(b);
  const history: unknown[] = [];
  let previous: string | undefined;
  for (let i = 0; i < turns; i++) previous = await turn(hop.proxy.url, hop.ollama, history, i, previous);
  return b.sim.takeBill();
}

const bills: Array<Metric<BillEntry[]>> = [
  ['weighted input tokens', 'tokens', sum],
  ['prompt read from the cache, requests 3 on', '%', (bill) => readShare(bill.slice(2)), false],
];

/** CPU of the proxy per translated request (8 turns of history, 8 tools), marks on and off, in interleaved rounds. */
async function cpuPerRequest(hops: Record<'on' | 'off', Hop>, rounds: number, n: number) {
  const body = chatBody(eightTurns);
  const way = ({ proxy }: Hop) => ({ pid: proxy.pid, once: () => post(`${proxy.url}/api/v1/chat/completions`, body) });
  const cpu = await cpuPerCall({ on: way(hops.on), off: way(hops.off) }, rounds, n);
  // The marking step alone, in this process, on the same request in the native form: what the hop CPU above cannot
  // resolve, since two processes differ by more than the step costs.
  const native = {
    model: neutralModel,
    max_tokens: 4096,
    system,
    tools: chatTools.map((t) => ({ name: t.function.name, input_schema: t.function.parameters })),
    messages: eightTurns.map((m) => ({ ...m, content: [{ type: 'text', text: m.content }] })),
  } as unknown as NativeRequest;
  const calls = 100_000;
  const start = performance.now();
  for (let i = 0; i < calls; i++) withCacheMarks(native, '5m', defaultProfile.api.promptCache);
  const step = ((performance.now() - start) * 1000) / calls;
  return { ...cpu, step };
}

/** What (x) keeps for the goals: each route's bills by turns, marks on and off, and the CPU per request. */
export interface DirectCacheRaw {
  conversations: Record<string, Record<'on' | 'off', BillEntry[]>>;
  /** Hop CPU per request (µs) with marks on and off; `step`: the marking step alone, µs a call. */
  cpu?: Record<'on' | 'off' | 'step', number>;
}

export async function runDirectCacheWorkload(b: Bench): Promise<void> {
  await withHop(b, 'on', (on) => withHop(b, 'off', (off) => measure(b, { on, off })));
}

async function measure(b: Bench, hops: Record<'on' | 'off', Hop>): Promise<void> {
  const raw: DirectCacheRaw & Record<string, unknown> = { conversations: {} };
  /** The bills of one conversation through each hop, and its rows: cache marks on (proxy col.) vs off (direct col.). */
  const both = async (what: string, turn: Turn, turns: number, metrics = bills) => {
    const got = { on: await billOf(b, hops.on, turn, turns), off: await billOf(b, hops.off, turn, turns) };
    b.rows.push(...rowsOf(wl(what), pair(got.on, got.off), metrics));
    return got;
  };
  const wl = (what: string) => `(x) direct mode, ${what}: cache marks on (proxy col.) vs off (direct col.)`;
  for (const turns of [8, 30])
    for (const [name, turn] of Object.entries(routes)) {
      b.log(`(x) ${name}, ${turns} turns`);
      raw.conversations[`${name}, ${turns} turns`] = await both(`${name}, ${turns}-turn conversation`, turn, turns);
    }
  b.log('(x) agent loop, 12 parallel tool calls a step');
  const agent = await both('agent loop of 8 steps, 12 parallel tool calls each', agentStep, 8);
  b.log('(x) one-off requests');
  const once = await both('one-off request (a system prompt, one question, no tools)', oneOff, 1, [bills[0]]);
  const twice = await both('two one-off requests of one client (the same system prompt)', oneOff, 2, [bills[0]]);
  b.log('(x) CPU per translated request');
  const cpu = await cpuPerRequest(hops, 10, b.cfg.quick ? 20 : 100);
  b.rows.push(
    ...rowsOf(wl('CPU of one translated request (8 turns, 8 tools)'), pair(cpu.on, cpu.off), [
      ['proxy CPU per request', 'µs', (x) => x],
    ]),
    ...rowsOf(wl('the marking step alone, the same request'), pair(cpu.step, 'not run'), [
      ['CPU per call', 'µs', (x) => x, false],
    ]),
  );
  Object.assign(raw, { agent, once, twice, cpu });
  b.raw.x = raw;
}
