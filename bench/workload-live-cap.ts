// (k) CLI_LIVE_MAX holds with the real CLI (docs/tool-mode.md "Caps"): a proxy with the default cap (4) and the warm
// pool on (CLI_POOL_SIZE=1) is given more conversations than the cap, some left idle after a plain answer and some
// left waiting for tool results (a request with the client's own tools, answered with a tool call, never followed
// up), two requests at a time, then left alone for a few seconds while the pool refills. Every 100 ms the bench
// counts the CLI processes under the proxy (its descendants whose executable is the CLI, from /proc) and sums their
// RSS. The figures: the peak count against the cap, the count at the end, and the peak and final RSS. A peak above
// the cap is reported as it is, never hidden: the goal row says "no".

import { existsSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { defaultProfile } from '../src/proxy/profile.js';
import { writeCliCredentials } from '../test/simulator/index.js';
import { baseKnobs, neutralModel, sleep, type Bench } from './context.js';
import type { Cell, Row, Target } from './report.js';
import { readRss } from './rss.js';
import { repoRoot, startProxyProcess, type ProxyProcessOptions } from './servers.js';
import { realCliPath } from './workload-pool.js';
import { cliProcesses, descendants } from '../test/helpers/proc-tree.js';

/** The cap under test: the default of CLI_LIVE_MAX, set explicitly so the row cannot drift from the setting. */
const liveMax = 4;
const idleChats = 4;
const waitingChats = 4;
const samplePeriodMs = 100;
/** Left alone at the end: the warm pool refills after its last hand-out. */
const settleMs = 5000;

export interface LiveCapRaw {
  liveMax: number;
  idleChats: number;
  waitingChats: number;
  samples: number;
  peakCli: number;
  endCli: number;
  /** Every descendant of the proxy, CLI or not (a wrapper before it execs, a shell a CLI started). */
  peakDescendants: number;
  peakRssBytes: number;
  endRssBytes: number;
  /** When the peak was first reached, ms from the first request, and what the run had done by then. */
  peakAtMs: number;
  peakDuring: string;
  /** Samples with more CLI processes than the cap, and of those, the ones where a process already on its way out
   * (it was gone within 2.5 s: SIGTERM, then SIGKILL after 2 s) explains the excess. */
  overCap: { samples: number; explainedByExiting: number; extraLifeMs: number[] };
  answers: { idle: number; toolCalls: number; errors: number };
  firstError?: string;
  seconds: number;
}

function exeOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return undefined;
  }
}

interface Sample {
  at: number;
  cli: number;
  all: number;
  rss: number;
  pids: number[];
}

function sample(proxyPid: number, cliExe: string): Sample {
  const all = descendants(proxyPid);
  const pids = cliProcesses(proxyPid, (p) => exeOf(p) === cliExe);
  let rss = 0;
  for (const p of pids) rss += readRss(p)?.rss ?? 0;
  return { at: Date.now(), cli: pids.length, all: all.length, rss, pids };
}

const tools = [
  {
    name: 'get_weather',
    description: 'Weather of a city',
    input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

async function ask(base: string, body: Record<string, unknown>): Promise<{ stop?: string; error?: string }> {
  try {
    const res = await fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    if (!res.ok) return { error: `${res.status} ${text.slice(0, 200)}` };
    return { stop: (JSON.parse(text) as { stop_reason?: string }).stop_reason };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function measure(b: Bench, o: ProxyProcessOptions, home: string): Promise<LiveCapRaw> {
  const env = {
    [defaultProfile.cli.baseUrlEnv]: b.sim.url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLI_LIVE_MAX: String(liveMax),
    CLI_POOL_SIZE: '1',
  };
  const proxy = await startProxyProcess({ ...o, cliPath: realCliPath, home, env });
  const cliExe = realpathSync(realCliPath);
  const started = Date.now();
  const raw: LiveCapRaw = {
    liveMax,
    idleChats,
    waitingChats,
    samples: 0,
    peakCli: 0,
    endCli: 0,
    peakDescendants: 0,
    peakRssBytes: 0,
    endRssBytes: 0,
    peakAtMs: 0,
    peakDuring: 'start',
    overCap: { samples: 0, explainedByExiting: 0, extraLifeMs: [] },
    answers: { idle: 0, toolCalls: 0, errors: 0 },
    seconds: 0,
  };
  let phase = 'start';
  let last: Sample = { at: started, cli: 0, all: 0, rss: 0, pids: [] };
  /** When each CLI process was last seen, and the samples over the cap, attributed after the run. */
  const lastSeen = new Map<number, number>();
  const over: Sample[] = [];
  const take = (): void => {
    last = sample(proxy.pid, cliExe);
    for (const p of last.pids) lastSeen.set(p, last.at);
    if (last.cli > liveMax) over.push(last);
    raw.samples++;
    if (last.cli > raw.peakCli) {
      raw.peakCli = last.cli;
      raw.peakAtMs = Date.now() - started;
      raw.peakDuring = phase;
    }
    raw.peakDescendants = Math.max(raw.peakDescendants, last.all);
    raw.peakRssBytes = Math.max(raw.peakRssBytes, last.rss);
  };
  const timer = setInterval(take, samplePeriodMs);
  try {
    // Each conversation is its own (its first message differs), so none continues another's process.
    const jobs: Array<{ label: string; body: Record<string, unknown>; tool: boolean }> = [];
    for (let i = 0; i < Math.max(idleChats, waitingChats); i++) {
      if (i < idleChats)
        jobs.push({
          label: `idle chat ${i + 1}`,
          tool: false,
          body: { model: neutralModel, max_tokens: 64, messages: [{ role: 'user', content: `Hello, chat ${i + 1}.` }] },
        });
      if (i < waitingChats)
        jobs.push({
          label: `tool call ${i + 1} left pending`,
          tool: true,
          body: {
            model: neutralModel,
            max_tokens: 64,
            tools,
            messages: [{ role: 'user', content: `Weather in city number ${i + 1}?` }],
          },
        });
    }
    // Two at a time: a busy turn beside idle and waiting processes, as two clients of one desktop would.
    for (let i = 0; i < jobs.length; i += 2) {
      const pair = jobs.slice(i, i + 2);
      phase = pair.map((j) => j.label).join(' + ');
      const results = await Promise.all(pair.map((j) => ask(proxy.url, j.body)));
      results.forEach((r, k) => {
        if (r.error || (pair[k].tool ? r.stop !== 'tool_use' : r.stop === 'tool_use')) {
          raw.answers.errors++;
          raw.firstError ??= `${pair[k].label}: ${r.error ?? `stop_reason ${r.stop}`}`;
        } else if (pair[k].tool) raw.answers.toolCalls++;
        else raw.answers.idle++;
      });
    }
    phase = 'left alone (the pool refills)';
    await sleep(settleMs);
    take();
    raw.endCli = last.cli;
    raw.endRssBytes = last.rss;
    // An over-cap sample is explained by a process on its way out when, of its processes, as many as the excess were
    // gone within 2.5 s (the end's SIGTERM, then SIGKILL after 2 s): the registry no longer counted them.
    for (const o of over) {
      raw.overCap.samples++;
      const left = o.pids.map((p) => (lastSeen.get(p) ?? o.at) - o.at).sort((x, y) => x - y);
      const excess = o.cli - liveMax;
      if (left[excess - 1] !== undefined && left[excess - 1] < 2500 && last.pids.length <= liveMax) {
        raw.overCap.explainedByExiting++;
        raw.overCap.extraLifeMs.push(left[excess - 1]);
      }
    }
  } finally {
    clearInterval(timer);
    raw.seconds = (Date.now() - started) / 1000;
    await proxy.stop();
  }
  return raw;
}

function rows(b: Bench, r: LiveCapRaw): void {
  const cells = (v: Cell): Record<Target, Cell> => ({ proxy: v, direct: 'n/a', nginx: 'n/a', node: 'n/a', ccr: 'n/a' });
  const workload = `(k) real CLI, CLI_LIVE_MAX=${r.liveMax}, pool 1: ${r.idleChats} idle chats and ${r.waitingChats} tool calls left pending, 2 at a time`;
  const mb = (bytes: number): number => bytes / 2 ** 20;
  const out: Row[] = [
    { workload, metric: 'peak CLI processes', unit: 'count', cells: cells(r.peakCli), ratios: false },
    { workload, metric: 'CLI processes at the end', unit: 'count', cells: cells(r.endCli), ratios: false },
    {
      workload,
      metric: 'peak processes under the proxy',
      unit: 'count',
      cells: cells(r.peakDescendants),
      ratios: false,
    },
    { workload, metric: 'peak RSS of the CLI processes', unit: 'MB', cells: cells(mb(r.peakRssBytes)), ratios: false },
    {
      workload,
      metric: 'RSS of the CLI processes at the end',
      unit: 'MB',
      cells: cells(mb(r.endRssBytes)),
      ratios: false,
    },
    { workload, metric: 'samples above the cap', unit: 'count', cells: cells(r.overCap.samples), ratios: false },
    { workload, metric: 'errors', unit: 'count', cells: cells(r.answers.errors), ratios: false },
  ];
  b.rows.push(...out);
  b.notes.push(
    `(k) ${r.samples} samples in ${r.seconds.toFixed(1)} s; the peak of ${r.peakCli} CLI processes first at ${(r.peakAtMs / 1000).toFixed(1)} s, during: ${r.peakDuring}; answered ${r.answers.idle} plain, ${r.answers.toolCalls} tool calls`,
  );
  if (r.overCap.samples > 0)
    b.notes.push(
      `(k) ${r.overCap.samples} samples (of ${r.samples}, ${samplePeriodMs} ms apart) saw more CLI processes than CLI_LIVE_MAX; in ${r.overCap.explainedByExiting} of them the extra one was a process the proxy had already ended or let go, still exiting (gone ${r.overCap.extraLifeMs.length ? `${Math.min(...r.overCap.extraLifeMs)}–${Math.max(...r.overCap.extraLifeMs)} ms` : 'n/a'} later): the registry stops counting a process when it tells it to end, not when it has exited`,
    );
  if (r.firstError) b.notes.push(`(k) first error: ${r.firstError}`);
}

export async function runLiveCapWorkload(b: Bench, o: ProxyProcessOptions): Promise<void> {
  if (!existsSync(realCliPath)) {
    b.raw.k = `not installed at ${relative(repoRoot, realCliPath)} (npm run test:setup installs it)`;
    b.notes.push('(k) the real CLI is not installed (npm run test:setup): not measured');
    return;
  }
  const tmp = await mkdtemp(join(tmpdir(), 'bench-live-cap-'));
  try {
    await b.sim.setKnobs({ ...baseKnobs(), answerTools: true, toolInput: { city: 'Paris' }, toolCalls: 1 });
    const home = join(tmp, 'home');
    await mkdir(join(home, '.claude'), { recursive: true });
    await writeCliCredentials(join(home, '.claude'), {
      accessToken: 'sk-ant-oat01-bench-live-cap',
      refreshToken: 'sk-ant-ort01-bench-live-cap',
      expiresAt: Date.now() + 3_600_000,
    });
    b.log(`(k) real CLI, CLI_LIVE_MAX=${liveMax}: ${idleChats} idle chats, ${waitingChats} pending tool calls`);
    const raw = await measure(b, o, home);
    b.raw.k = raw;
    rows(b, raw);
  } finally {
    await b.sim.setKnobs(baseKnobs());
    await rm(tmp, { recursive: true, force: true });
  }
}
