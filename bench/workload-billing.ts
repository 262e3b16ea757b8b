// (w) What tool mode costs in the provider's bill, and how soon a follow-up turn answers (docs/benchmarks.md "What is
// measured" and "A fresh start after eviction"). The fake CLI never calls the provider: its rows can only show times.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { billAfter, chat, converse, freshSimulator, readShare, sum, userTurn, type Conversation } from './bill.js';
import { runCli } from './cli.js';
import { baseKnobs, cliAloneEnv, inTempDir, neutralModel, providerModel, realCli, withProxy } from './context.js';
import type { Bench, CliParts } from './context.js';
import { summarize } from './load.js';
import { pair, rowsOf, type Metric } from './report.js';
import { sleep } from './servers.js';
import type { BillEntry } from './simulator-process.js';

/** Two different "hello" chats: the second finds the cache warm with what the first left (a client's fixed prefix). */
const hellos = ['Say hello in a few words.', 'Say hello again, in other words.'] as const;
const TURNS = 8;
const LIVE_TURNS = 4;

interface Hellos {
  cold: BillEntry[];
  warm: BillEntry[];
  error?: string;
}

export interface BillingRaw {
  toolHello?: Hellos;
  aloneHello?: Hellos;
  tool?: Conversation;
  alone?: Conversation & { error?: string };
  note?: string;
}

async function helloTwice(b: Bench, once: (prompt: string) => Promise<string | undefined>): Promise<Hellos> {
  await freshSimulator(b);
  const e1 = await once(hellos[0]);
  const cold = await billAfter(b);
  const e2 = await once(hellos[1]);
  return { cold, warm: await billAfter(b), error: e1 ?? e2 };
}

/**
 * Tool mode on an empty cache: turns through one fresh proxy with this CLI, then `after` more through another (a
 * restart), or `then` through the same one.
 */
async function viaToolMode(
  b: Bench,
  cli: CliParts,
  turns: number,
  o: { after?: number; then?: (url: string) => Promise<void> } = {},
): Promise<Conversation> {
  await freshSimulator(b);
  let conv: Conversation | undefined;
  const history: never[] = [];
  const life = (from: number, to: number) =>
    withProxy(b, cli, async (proxy) => {
      const via = { path: '/v1/messages', model: neutralModel, baseOf: () => proxy.url };
      conv = await converse(b, via, [from, to], conv, history);
      if (!o.after) await o.then?.(proxy.url);
    });
  await life(0, turns);
  if (o.after) await life(turns, turns + o.after);
  return conv!;
}

/** The CLI alone: a process per "hello"; one process for the whole conversation. */
async function viaCliAlone(b: Bench, cliPath: string, env: NodeJS.ProcessEnv, cwd: string, billed: boolean) {
  const hello = billed
    ? await helloTwice(b, async (p) => (await runCli(cliPath, providerModel, [p], env, cwd)).error)
    : undefined;
  await freshSimulator(b);
  const turns = Array.from({ length: TURNS }, (_, i) => userTurn(i));
  const run = await runCli(cliPath, providerModel, turns, env, cwd);
  const bill = await billAfter(b);
  // One request a turn when the CLI makes no side requests to the messages API; else the turn is found by the
  // number of messages it carries (2 × turn - 1).
  const bills = billed ? Array.from({ length: TURNS }, (_, i) => bill.filter((e) => e.messages === 2 * i + 1)) : [];
  if (billed) bills[0].push(...bill.filter((e) => e.messages % 2 === 0 || e.messages > 2 * TURNS - 1));
  const ttft = run.turns.map((t) => t.ttftMs);
  return { hello, alone: { bills, ttft, errors: TURNS - run.turns.filter((t) => t.ok).length, error: run.error } };
}

const late = (c: Conversation) => readShare(c.bills.slice(2).flat());

function cliRows(label: string, r: BillingRaw, billed: boolean) {
  const helloWl = `(w) ${label}, one "hello": tool mode (proxy col.) vs the CLI alone (direct col.)`;
  const convWl = `(w) ${label}, ${TURNS}-turn conversation of 3 KB turns: tool mode (proxy col.) vs the CLI alone, one process (direct col.)`;
  const followUps = (c: Conversation) => summarize(c.ttft.slice(1).filter((x): x is number => x !== undefined)).p50;
  const conv = pair<Conversation>(r.tool ?? 'not run', r.alone ?? 'not run');
  const bill: Array<Metric<Conversation>> = [
    ['weighted input tokens, all turns', 'tokens', (c) => sum(c.bills.flat())],
    ['prompt read from the cache, turns 3 on', '%', late, false],
  ];
  const hello = pair<Hellos>(r.toolHello ?? 'not run', r.aloneHello ?? 'not run');
  return [
    ...(billed
      ? rowsOf(helloWl, hello, [
          ['weighted input tokens, cold cache', 'tokens', (h) => sum(h.cold)],
          ['weighted input tokens, warm cache', 'tokens', (h) => sum(h.warm)],
        ])
      : []),
    ...rowsOf(convWl, conv, [
      ...(billed ? bill : []),
      ['TTFT, turn 1 (cold start)', 'ms', (c) => c.ttft[0] ?? 'no answer'],
      ['TTFT, follow-up turns p50', 'ms', followUps],
      ['errors', 'count', (c) => c.errors, false],
    ]),
  ];
}

/** Direct mode: the bench's own proxy (/api/v1/messages forwards the client's body as it is) and the simulator. */
async function directMode(b: Bench): Promise<Record<string, unknown>> {
  const direct: Record<string, { conversation: Conversation; hellos: Hellos }> = {};
  for (const [name, base, path, model] of [
    ['proxy', b.proxy.url, '/api/v1/messages', neutralModel],
    ['provider', b.sim.url, '/v1/messages', providerModel],
  ] as const) {
    b.log(`(w) direct mode, ${name}`);
    await freshSimulator(b);
    const conversation = await converse(b, { path, model, marked: true, baseOf: () => base }, [0, TURNS]);
    const hellos = await helloTwice(b, async (p) => {
      const content = [{ type: 'text', text: p, cache_control: { type: 'ephemeral' } }];
      return (await chat(base, path, model, [{ role: 'user', content }])).error;
    });
    direct[name] = { conversation, hellos };
  }
  const wl =
    '(w) direct mode, a client that marks its own cache breakpoint: through the proxy (proxy col.) vs to the provider itself (direct col.)';
  b.rows.push(
    ...rowsOf(wl, pair(direct.proxy, direct.provider), [
      ['weighted input tokens, one "hello", cold cache', 'tokens', (x) => sum(x.hellos.cold)],
      ['weighted input tokens, one "hello", warm cache', 'tokens', (x) => sum(x.hellos.warm)],
      [`weighted input tokens, ${TURNS}-turn conversation`, 'tokens', (x) => sum(x.conversation.bills.flat())],
      ['prompt read from the cache, turns 3 on', '%', (x) => late(x.conversation), false],
    ]),
  );
  return direct;
}

/** A fresh start after eviction, both ways, the same conversation on an empty cache each. */
async function freshStart(b: Bench, cli: CliParts): Promise<Record<'resumed' | 'text', Conversation>> {
  const profileFile = join(cli.home, 'profile-text-history.json');
  await writeFile(profileFile, JSON.stringify({ cli: { resumeFlag: '' } }), { mode: 0o600 });
  b.log('(w) real CLI: a fresh start after eviction, resumed transcript');
  const resumed = await viaToolMode(b, cli, LIVE_TURNS, { after: 2 });
  b.log('(w) real CLI: a fresh start after eviction, history as text');
  const textCli = { ...cli, env: { ...cli.env, ASSISTANT_PROFILE_FILE: profileFile } };
  const text = await viaToolMode(b, textCli, LIVE_TURNS, { after: 2 });
  const wl = `(w) real CLI, a fresh start after eviction (${LIVE_TURNS} live turns, a restart, 2 more): resumed transcript (proxy col.) vs history as text, as before (direct col.)`;
  const at = (i: number) => (x: Conversation) => (x.bills[i - 1] ? readShare(x.bills[i - 1]) : 'not run');
  const tokens = (x: Conversation) => (x.bills.length > LIVE_TURNS ? sum(x.bills.slice(LIVE_TURNS).flat()) : 'not run');
  const [five, six] = [LIVE_TURNS + 1, LIVE_TURNS + 2];
  b.rows.push(
    ...rowsOf(wl, pair(resumed, text), [
      [`prompt read from the cache, turn ${five} (the fresh start)`, '%', at(five), false],
      [`prompt read from the cache, turn ${six} (the turn after it)`, '%', at(six), false],
      [`weighted input tokens, turns ${five} and ${six}`, 'tokens', tokens],
      ['errors', 'count', (x) => x.errors, false],
    ]),
  );
  const error = resumed.firstError ?? text.firstError;
  if (error) b.notes.push(`(w) real CLI, a fresh start after eviction, first error: ${error}`);
  return { resumed, text };
}

/** Tool mode, then the CLI alone, with one CLI; the real one is billed, the fake one only timed. */
async function oneCli(b: Bench, cli: CliParts, cliEnv: NodeJS.ProcessEnv, work: string, billed: boolean) {
  const raw: BillingRaw = billed ? {} : { note: 'the fake CLI never calls the provider: times only' };
  await mkdir(work, { recursive: true });
  const label = billed ? 'real CLI' : `fake CLI (start-up ${b.cfg.cliDelayMs} ms)`;
  b.log(`(w) ${label}: tool mode`);
  const helloThrough = async (url: string) => {
    const once = async (p: string) =>
      (await chat(url, '/v1/messages', neutralModel, [{ role: 'user', content: p }])).error;
    if (billed) raw.toolHello = await helloTwice(b, once);
  };
  raw.tool = await viaToolMode(b, cli, TURNS, { then: helloThrough });
  b.log(`(w) ${label}: the CLI alone`);
  const { hello, alone } = await viaCliAlone(b, cli.cliPath, cliEnv, work, billed);
  Object.assign(raw, { aloneHello: hello, alone });
  b.rows.push(...cliRows(billed ? 'real CLI' : label, raw, billed));
  const first = raw.tool.firstError ?? alone.error ?? raw.toolHello?.error ?? hello?.error;
  if (first) b.notes.push(`(w) ${billed ? 'real' : 'fake'} CLI, first error: ${first}`);
  return raw;
}

export async function runBillingWorkload(b: Bench): Promise<void> {
  const raw: Record<string, unknown> = {};
  await inTempDir('bench-billing-', async (tmp) => {
    try {
      // Requests of the warm-up still on their way through a hop (aborted by the load generator, forwarded anyway)
      // must not land in the first bill.
      await sleep(1000);
      raw.direct = await directMode(b);
      const note = '(w) the real CLI is not installed (npm run test:setup): no bill through tool mode or the CLI alone';
      const real = await realCli(b, join(tmp, 'real-home'), note);
      if (typeof real === 'string') raw.real = { note: real };
      else {
        raw.real = await oneCli(b, real, cliAloneEnv(real.home, real.env), join(tmp, 'real-work'), true);
        raw.freshStart = await freshStart(b, real);
      }
      const fakeHome = join(tmp, 'fake-home');
      await mkdir(fakeHome, { recursive: true });
      raw.fake = await oneCli(b, { cliPath: b.cliPath, home: fakeHome }, b.cliEnv, join(tmp, 'fake-work'), false);
    } finally {
      await b.sim.reset();
      await b.sim.setKnobs(baseKnobs());
    }
  });
  b.raw.w = raw;
}
