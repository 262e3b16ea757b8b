// (w) What tool mode costs in the provider's bill, and how soon a follow-up turn answers (docs/performance.md,
// "Tool mode's bill"). The simulator bills like the provider (docs/testing.md): prompt-cache reads and writes
// from the prefixes it has seen, 4 bytes a token. Weighted input tokens = uncached input + 5-minute writes × 1.25 +
// 1-hour writes × 2 + cache reads × 0.1. Measured, each from an empty cache:
// - one "hello" on an empty cache (cold), then another "hello" on the cache the first left (warm: what a client's
//   fixed prefix costs once it is cached), and an 8-turn conversation of ~3 KB user turns;
// - through tool mode (a fresh proxy process with the CLI under test; the client re-sends the whole history each
//   turn), through the CLI alone (one process per "hello"; one process for the whole conversation, a user message
//   on its stdin after each result), and through direct mode (a client that marks its own cache breakpoint on its
//   newest turn; through the proxy and straight to the simulator);
// - time to first token of the conversation's first turn on a fresh proxy (a cold start) and of its follow-ups.
// The real CLI when the test set-up installed it, and the fake CLI, which never calls the provider: its rows can only
// show times, not the bill.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { defaultProfile } from '../src/proxy/profile.js';
import { writeCliCredentials } from '../test/simulator/index.js';
import { billAfter, chat, freshSimulator, readShare, reply, sum, userTurn, type Message } from './bill.js';
import { runCliConversation } from './cli-conversation.js';
import { baseKnobs, neutralModel, providerModel, sleep, type Bench } from './context.js';
import type { Cell, Row, Target } from './report.js';
import { repoRoot, startProxyProcess, type ProxyProcessOptions } from './servers.js';
import { freshStartAfterEviction, freshStartRows } from './workload-fresh-start.js';
import type { BillEntry } from './simulator-process.js';
import { summarize } from './stats.js';
import { realCliPath } from './workload-pool.js';

/** Two different "hello" chats: the second finds the cache warm with what the first left (a client's fixed prefix). */
const hellos = ['Say hello in a few words.', 'Say hello again, in other words.'] as const;
const TURNS = 8;
interface Conversation {
  bills: BillEntry[][];
  ttft: Array<number | undefined>;
  errors: number;
  firstError?: string;
}

/** Eight turns through tool mode: the client sends the whole history each turn, as chat clients do. */
async function toolConversation(b: Bench, base: string): Promise<Conversation> {
  const conv: Conversation = { bills: [], ttft: [], errors: 0 };
  const messages: Message[] = [];
  for (let i = 0; i < TURNS; i++) {
    messages.push({ role: 'user', content: userTurn(i) });
    const r = await chat(base, '/v1/messages', neutralModel, messages);
    conv.bills.push(await billAfter(b));
    conv.ttft.push(r.ttftMs);
    if (r.error) {
      conv.errors++;
      conv.firstError ??= `turn ${i + 1}: ${r.error}`;
    }
    messages.push({ role: 'assistant', content: r.text || reply });
  }
  return conv;
}

/** Eight turns in direct mode from a client that marks a cache breakpoint on its newest turn. */
async function directConversation(b: Bench, base: string, path: string, model: string): Promise<Conversation> {
  const conv: Conversation = { bills: [], ttft: [], errors: 0 };
  const history: Message[] = [];
  for (let i = 0; i < TURNS; i++) {
    const turn = [{ type: 'text', text: userTurn(i), cache_control: { type: 'ephemeral' } }];
    const r = await chat(base, path, model, [...history, { role: 'user', content: turn }]);
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

interface Hellos {
  cold: BillEntry[];
  warm: BillEntry[];
  error?: string;
}

async function helloTwice(b: Bench, once: (prompt: string) => Promise<string | undefined>): Promise<Hellos> {
  const e1 = await once(hellos[0]);
  const cold = await billAfter(b);
  const e2 = await once(hellos[1]);
  const warm = await billAfter(b);
  return { cold, warm, error: e1 ?? e2 };
}

export interface BillingRaw {
  toolHello?: Hellos;
  aloneHello?: Hellos;
  tool?: Conversation;
  alone?: Conversation & { error?: string };
  note?: string;
}

/** Tool mode through a fresh proxy with this CLI: the conversation first (its first turn is the cold start), then the hellos. */
async function viaToolMode(
  b: Bench,
  o: ProxyProcessOptions,
  cliPath: string,
  home: string,
  env: NodeJS.ProcessEnv,
  raw: BillingRaw,
): Promise<void> {
  const proxy = await startProxyProcess({ ...o, cliPath, home, env });
  try {
    await freshSimulator(b);
    raw.tool = await toolConversation(b, proxy.url);
    await freshSimulator(b);
    raw.toolHello = await helloTwice(
      b,
      async (prompt) =>
        (await chat(proxy.url, '/v1/messages', neutralModel, [{ role: 'user', content: prompt }])).error,
    );
  } finally {
    await proxy.stop();
  }
}

/** The CLI alone: a process per "hello"; one process for the whole conversation. */
async function viaCliAlone(
  b: Bench,
  cliPath: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  raw: BillingRaw,
): Promise<void> {
  await freshSimulator(b);
  raw.aloneHello = await helloTwice(
    b,
    async (prompt) => (await runCliConversation(cliPath, providerModel, [prompt], env, cwd)).error,
  );
  await freshSimulator(b);
  const run = await runCliConversation(
    cliPath,
    providerModel,
    Array.from({ length: TURNS }, (_, i) => userTurn(i)),
    env,
    cwd,
  );
  const bill = await billAfter(b);
  // One request a turn when the CLI makes no side requests to the messages API; else the turn is found by the
  // number of messages it carries (2 × turn - 1).
  const bills = Array.from({ length: TURNS }, (_, i) => bill.filter((e) => e.messages === 2 * i + 1));
  const stray = bill.filter((e) => e.messages % 2 === 0 || e.messages > 2 * TURNS - 1);
  if (stray.length) bills[0].push(...stray);
  raw.alone = {
    bills,
    ttft: run.turns.map((t) => t.ttftMs),
    errors: TURNS - run.turns.filter((t) => t.ok).length,
    error: run.error,
  };
}

const none = 'n/a';
const cells = (p: Cell, d: Cell): Record<Target, Cell> => ({ proxy: p, direct: d, nginx: none, node: none, ccr: none });
const median = (v: Array<number | undefined>): number => summarize(v.filter((x): x is number => x !== undefined)).p50;

function cliRows(label: string, r: BillingRaw, billed: boolean): Row[] {
  const noBill = 'n/a (the fake CLI never calls the provider)';
  const tokens = (bill: BillEntry[] | undefined): Cell => (!billed ? noBill : bill ? sum(bill) : 'not run');
  const helloWl = `(w) ${label}, one "hello": tool mode (proxy col.) vs the CLI alone (direct col.)`;
  const convWl = `(w) ${label}, ${TURNS}-turn conversation of 3 KB turns: tool mode (proxy col.) vs the CLI alone, one process (direct col.)`;
  const tool = r.tool;
  const alone = r.alone;
  const convTokens = (c: Conversation | undefined): Cell => (!billed ? noBill : c ? sum(c.bills.flat()) : 'not run');
  const lateRead = (c: Conversation | undefined): Cell =>
    !billed ? noBill : c ? readShare(c.bills.slice(2).flat()) : 'not run';
  return [
    {
      workload: helloWl,
      metric: 'weighted input tokens, cold cache',
      unit: 'tokens',
      cells: cells(tokens(r.toolHello?.cold), tokens(r.aloneHello?.cold)),
      ratios: billed,
    },
    {
      workload: helloWl,
      metric: 'weighted input tokens, warm cache',
      unit: 'tokens',
      cells: cells(tokens(r.toolHello?.warm), tokens(r.aloneHello?.warm)),
      ratios: billed,
    },
    {
      workload: convWl,
      metric: 'weighted input tokens, all turns',
      unit: 'tokens',
      cells: cells(convTokens(tool), convTokens(alone)),
      ratios: billed,
    },
    {
      workload: convWl,
      metric: 'prompt read from the cache, turns 3 on',
      unit: '%',
      cells: cells(lateRead(tool), lateRead(alone)),
      ratios: false,
    },
    {
      workload: convWl,
      metric: 'TTFT, turn 1 (cold start)',
      unit: 'ms',
      cells: cells(tool?.ttft[0] ?? 'no answer', alone ? (alone.ttft[0] ?? 'no answer') : 'not run'),
      ratios: true,
    },
    {
      workload: convWl,
      metric: 'TTFT, follow-up turns p50',
      unit: 'ms',
      cells: cells(tool ? median(tool.ttft.slice(1)) : 'not run', alone ? median(alone.ttft.slice(1)) : 'not run'),
      ratios: true,
    },
    {
      workload: convWl,
      metric: 'errors',
      unit: 'count',
      cells: cells(tool?.errors ?? 'not run', alone?.errors ?? 'not run'),
      ratios: false,
    },
  ];
}

export async function runBillingWorkload(b: Bench, o: ProxyProcessOptions): Promise<void> {
  const raw: Record<string, BillingRaw | Record<string, unknown>> = {};
  const tmp = await mkdtemp(join(tmpdir(), 'bench-billing-'));
  try {
    // Requests of the warm-up still on their way through a hop (aborted by the load generator, forwarded anyway)
    // must not land in the first bill.
    await sleep(1000);
    // Direct mode: the bench's own proxy (/api/v1/messages forwards the client's body as it is) and the simulator.
    const direct: Record<string, unknown> = {};
    for (const [name, base, path, model] of [
      ['proxy', b.proxy.url, '/api/v1/messages', neutralModel],
      ['provider', b.sim.url, '/v1/messages', providerModel],
    ] as const) {
      b.log(`(w) direct mode, ${name}`);
      await freshSimulator(b);
      const conversation = await directConversation(b, base, path, model);
      await freshSimulator(b);
      const hellos = await helloTwice(
        b,
        async (prompt) =>
          (
            await chat(base, path, model, [
              { role: 'user', content: [{ type: 'text', text: prompt, cache_control: { type: 'ephemeral' } }] },
            ])
          ).error,
      );
      direct[name] = { conversation, hellos };
    }
    raw.direct = direct;
    const d = direct as Record<'proxy' | 'provider', { conversation: Conversation; hellos: Hellos }>;
    const dWl =
      '(w) direct mode, a client that marks its own cache breakpoint: through the proxy (proxy col.) vs to the provider itself (direct col.)';
    b.rows.push(
      {
        workload: dWl,
        metric: 'weighted input tokens, one "hello", cold cache',
        unit: 'tokens',
        cells: cells(sum(d.proxy.hellos.cold), sum(d.provider.hellos.cold)),
        ratios: true,
      },
      {
        workload: dWl,
        metric: 'weighted input tokens, one "hello", warm cache',
        unit: 'tokens',
        cells: cells(sum(d.proxy.hellos.warm), sum(d.provider.hellos.warm)),
        ratios: true,
      },
      {
        workload: dWl,
        metric: `weighted input tokens, ${TURNS}-turn conversation`,
        unit: 'tokens',
        cells: cells(sum(d.proxy.conversation.bills.flat()), sum(d.provider.conversation.bills.flat())),
        ratios: true,
      },
      {
        workload: dWl,
        metric: 'prompt read from the cache, turns 3 on',
        unit: '%',
        cells: cells(
          readShare(d.proxy.conversation.bills.slice(2).flat()),
          readShare(d.provider.conversation.bills.slice(2).flat()),
        ),
        ratios: false,
      },
    );

    if (existsSync(realCliPath)) {
      const home = join(tmp, 'real-home');
      const work = join(tmp, 'real-work');
      await mkdir(join(home, '.claude'), { recursive: true });
      await mkdir(work, { recursive: true });
      await writeCliCredentials(join(home, '.claude'), {
        accessToken: 'sk-ant-oat01-bench-billing',
        refreshToken: 'sk-ant-ort01-bench-billing',
        expiresAt: Date.now() + 3_600_000,
      });
      const env = { [defaultProfile.cli.baseUrlEnv]: b.sim.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
      const real: BillingRaw = {};
      b.log('(w) real CLI: tool mode');
      await viaToolMode(b, o, realCliPath, home, env, real);
      b.log('(w) real CLI: the CLI alone');
      await viaCliAlone(
        b,
        realCliPath,
        { PATH: process.env.PATH, HOME: home, [defaultProfile.cli.maxRetriesEnv]: '2', ...env },
        work,
        real,
      );
      raw.real = real;
      b.rows.push(...cliRows('real CLI', real, true));
      const fresh = await freshStartAfterEviction(b, o, realCliPath, home, env);
      raw.freshStart = fresh;
      b.rows.push(...freshStartRows(fresh));
      const freshError = fresh.resumed.firstError ?? fresh.text.firstError;
      if (freshError) b.notes.push(`(w) real CLI, a fresh start after eviction, first error: ${freshError}`);
      const first = real.tool?.firstError ?? real.alone?.error ?? real.toolHello?.error ?? real.aloneHello?.error;
      if (first) b.notes.push(`(w) real CLI, first error: ${first}`);
    } else {
      raw.real = { note: `not installed at ${relative(repoRoot, realCliPath)} (npm run test:setup installs it)` };
      b.notes.push(
        '(w) the real CLI is not installed (npm run test:setup): no bill through tool mode or the CLI alone',
      );
    }

    const fake: BillingRaw = { note: 'the fake CLI never calls the provider: times only' };
    const fakeHome = join(tmp, 'fake-home');
    await mkdir(fakeHome, { recursive: true });
    b.log('(w) fake CLI: tool mode');
    const proxy = await startProxyProcess({ ...o, cliPath: b.cliPath, home: fakeHome });
    try {
      await freshSimulator(b);
      fake.tool = await toolConversation(b, proxy.url);
    } finally {
      await proxy.stop();
    }
    // The fake CLI alone, one process for the conversation: its times only (it waits its start-up delay once, as
    // the real CLI starts up once, so a follow-up shows what continuing a live process costs).
    const fakeWork = join(tmp, 'fake-work');
    await mkdir(fakeWork, { recursive: true });
    const run = await runCliConversation(
      b.cliPath,
      providerModel,
      Array.from({ length: TURNS }, (_, i) => userTurn(i)),
      b.cliEnv,
      fakeWork,
    );
    fake.alone = {
      bills: [],
      ttft: run.turns.map((t) => t.ttftMs),
      errors: TURNS - run.turns.filter((t) => t.ok).length,
      error: run.error,
    };
    raw.fake = fake;
    b.rows.push(
      ...cliRows(`fake CLI (start-up ${b.cfg.cliDelayMs} ms)`, fake, false).filter(
        (r) => r.unit === 'ms' || r.unit === 'count',
      ),
    );
    const fakeError = fake.tool?.firstError ?? fake.alone?.error;
    if (fakeError) b.notes.push(`(w) fake CLI, first error: ${fakeError}`);
  } finally {
    await b.sim.reset();
    await b.sim.setKnobs(baseKnobs());
    await rm(tmp, { recursive: true, force: true });
  }
  b.raw.w = raw;
}
