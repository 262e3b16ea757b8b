// (w) A fresh start after an eviction, with the real CLI (docs/tool-mode.md "A fresh start"): four turns of a
// conversation continue one live process; the proxy is then restarted, which loses every live process as an eviction
// does; turn 5 starts a fresh process with the whole history, and turn 6 continues that process. Measured: the share
// of each turn's prompt the provider read from its cache, and the weighted tokens of turns 5 and 6, with a fresh
// start that resumes a transcript of the CLI's own format (the default) and with the history written as text in one
// message (the profile's `cli.resumeFlag` set to "", what tool mode did before).

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { billAfter, chat, freshSimulator, readShare, reply, sum, userTurn, type Message } from './bill.js';
import { neutralModel, type Bench } from './context.js';
import type { Cell, Row, Target } from './report.js';
import { startProxyProcess, type ProxyProcessOptions } from './servers.js';
import type { BillEntry } from './simulator-process.js';

const LIVE_TURNS = 4;

export interface FreshStartRun {
  /** The bill of each turn, turns 1 to 6. */
  bills: BillEntry[][];
  errors: number;
  firstError?: string;
}

async function run(
  b: Bench,
  o: ProxyProcessOptions,
  proxyOptions: Pick<ProxyProcessOptions, 'cliPath' | 'home' | 'env'>,
): Promise<FreshStartRun> {
  const out: FreshStartRun = { bills: [], errors: 0 };
  const messages: Message[] = [];
  await freshSimulator(b);
  const turn = async (base: string, i: number) => {
    messages.push({ role: 'user', content: userTurn(i) });
    const r = await chat(base, '/v1/messages', neutralModel, messages);
    out.bills.push(await billAfter(b));
    if (r.error) {
      out.errors++;
      out.firstError ??= `turn ${i + 1}: ${r.error}`;
    }
    messages.push({ role: 'assistant', content: r.text || reply });
  };
  const first = await startProxyProcess({ ...o, ...proxyOptions });
  try {
    for (let i = 0; i < LIVE_TURNS; i++) await turn(first.url, i);
  } finally {
    await first.stop();
  }
  const second = await startProxyProcess({ ...o, ...proxyOptions });
  try {
    await turn(second.url, LIVE_TURNS);
    await turn(second.url, LIVE_TURNS + 1);
  } finally {
    await second.stop();
  }
  return out;
}

/** Both ways of a fresh start, the same conversation on an empty cache each. */
export async function freshStartAfterEviction(
  b: Bench,
  o: ProxyProcessOptions,
  cliPath: string,
  home: string,
  env: NodeJS.ProcessEnv,
): Promise<{ resumed: FreshStartRun; text: FreshStartRun }> {
  const profileFile = join(home, 'profile-text-history.json');
  await writeFile(profileFile, JSON.stringify({ cli: { resumeFlag: '' } }), { mode: 0o600 });
  b.log('(w) real CLI: a fresh start after eviction, resumed transcript');
  const resumed = await run(b, o, { cliPath, home, env });
  b.log('(w) real CLI: a fresh start after eviction, history as text');
  const text = await run(b, o, { cliPath, home, env: { ...env, ASSISTANT_PROFILE_FILE: profileFile } });
  return { resumed, text };
}

export function freshStartRows(r: { resumed: FreshStartRun; text: FreshStartRun }): Row[] {
  const wl = `(w) real CLI, a fresh start after eviction (${LIVE_TURNS} live turns, a restart, 2 more): resumed transcript (proxy col.) vs history as text, as before (direct col.)`;
  const cells = (p: Cell, d: Cell): Record<Target, Cell> => ({
    proxy: p,
    direct: d,
    nginx: 'n/a',
    node: 'n/a',
    ccr: 'n/a',
  });
  const at = (x: FreshStartRun, i: number): Cell => (x.bills[i] ? readShare(x.bills[i]) : 'not run');
  const tokens = (x: FreshStartRun): Cell =>
    x.bills.length > LIVE_TURNS ? sum(x.bills.slice(LIVE_TURNS).flat()) : 'not run';
  return [
    {
      workload: wl,
      metric: `prompt read from the cache, turn ${LIVE_TURNS + 1} (the fresh start)`,
      unit: '%',
      cells: cells(at(r.resumed, LIVE_TURNS), at(r.text, LIVE_TURNS)),
      ratios: false,
    },
    {
      workload: wl,
      metric: `prompt read from the cache, turn ${LIVE_TURNS + 2} (the turn after it)`,
      unit: '%',
      cells: cells(at(r.resumed, LIVE_TURNS + 1), at(r.text, LIVE_TURNS + 1)),
      ratios: false,
    },
    {
      workload: wl,
      metric: `weighted input tokens, turns ${LIVE_TURNS + 1} and ${LIVE_TURNS + 2}`,
      unit: 'tokens',
      cells: cells(tokens(r.resumed), tokens(r.text)),
      ratios: true,
    },
    {
      workload: wl,
      metric: 'errors',
      unit: 'count',
      cells: cells(r.resumed.errors, r.text.errors),
      ratios: false,
    },
  ];
}
