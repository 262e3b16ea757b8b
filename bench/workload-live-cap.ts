// (k) CLI_LIVE_MAX holds with the real CLI (docs/tool-mode.md "Live conversations"; docs/benchmark-findings.md
// "CLI_LIVE_MAX with idle chats and pending tool calls (k)"): a peak above the cap is reported as it is. The health
// probe's runs of the CLI (docs/http.md "Health") are outside the cap: told apart by their arguments, on a row of
// their own.

import { readlinkSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { defaultProfile } from '../src/proxy/profile.js';
import { cliProcesses, descendants, probeRun } from '../test/helpers/proc-tree.js';
import { baseKnobs, inTempDir, nativeHeaders, neutralModel, realCli, withProxy } from './context.js';
import type { Bench, RealCli } from './context.js';
import { probeOnce } from './load.js';
import { readRss } from './procfs.js';
import { pairRow } from './report.js';
import { sleep, type ProxyProcess } from './servers.js';

/** The cap under test: the default of CLI_LIVE_MAX, set explicitly so the row cannot drift from the setting. */
const liveMax = 4;
const [idleChats, waitingChats, samplePeriodMs] = [4, 4, 100];
/** Left alone at the end: the warm pool refills after its last hand-out. */
const settleMs = 5000;

export type LiveCapRaw = Awaited<ReturnType<typeof measure>>;

const city = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const tools = [{ name: 'get_weather', description: 'Weather of a city', input_schema: city }];

async function ask(base: string, body: Record<string, unknown>): Promise<{ stop?: string; error?: string }> {
  try {
    const spec = { base, path: '/v1/messages', headers: nativeHeaders, body: JSON.stringify(body) };
    const { status, text } = await probeOnce(spec, 60_000);
    if (status < 200 || status >= 300) return { error: `${status} ${text.slice(0, 200)}` };
    return { stop: (JSON.parse(text) as { stop_reason?: string }).stop_reason };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function measure(proxy: ProxyProcess, cli: RealCli) {
  const cliExe = realpathSync(cli.cliPath);
  const isCli = (pid: number): boolean => {
    try {
      return readlinkSync(`/proc/${pid}/exe`) === cliExe;
    } catch {
      return false;
    }
  };
  // The health probe's runs (proc-tree.ts probeRun). A pid keeps the first answer it gave (an exiting process's
  // arguments are empty); the samples are attributed after the run, so a probe run first seen before its arguments
  // are readable is still told apart. One never seen with arguments counts as the engine's: an excess is reported,
  // not hidden.
  const isProbe = new Map<number, boolean>();
  const learn = (pid: number): void => {
    const probe = isProbe.has(pid) ? undefined : probeRun(pid);
    if (probe !== undefined) isProbe.set(pid, probe);
  };
  const started = Date.now();
  // peakDescendants: every descendant of the proxy, CLI or not (a wrapper before it execs, a shell a CLI started);
  // peakAtMs and peakDuring: when the peak was first reached, and what the run had done by then.
  const raw = {
    ...{ liveMax, samples: 0, peakCli: 0, endCli: 0, peakDescendants: 0, peakRssBytes: 0, endRssBytes: 0 },
    /** The health probe's CLI runs seen at once at most, and in how many samples (not counted in peakCli). */
    ...{ peakProbeRuns: 0, samplesWithProbeRuns: 0 },
    ...{ peakAtMs: 0, peakDuring: 'start', overCap: 0, seconds: 0, firstError: undefined as string | undefined },
    answers: { idle: 0, toolCalls: 0, errors: 0 },
    /** Over-cap samples where a process on its way out (gone within 2.5 s) explains the excess, and how long it lived on. */
    explainedByExiting: [] as number[],
  };
  /** Every sample: when, during what, and each CLI process's RSS (bytes); attributed after the run. */
  const samples: Array<{ at: number; phase: string; rss: Map<number, number> }> = [];
  let phase = 'start';
  const take = (): void => {
    const pids = cliProcesses(proxy.pid, isCli);
    pids.forEach(learn);
    samples.push({ at: Date.now(), phase, rss: new Map(pids.map((p) => [p, readRss(p)?.rss ?? 0])) });
    raw.peakDescendants = Math.max(raw.peakDescendants, descendants(proxy.pid).length);
  };
  const timer = setInterval(take, samplePeriodMs);
  try {
    // Each conversation is its own (its first message differs), so none continues another's process.
    const job = (label: string, tool: boolean, content: string) => {
      const messages = [{ role: 'user', content }];
      return { label, tool, body: { model: neutralModel, max_tokens: 64, ...(tool ? { tools } : {}), messages } };
    };
    const jobs: Array<ReturnType<typeof job>> = [];
    for (let i = 1; i <= Math.max(idleChats, waitingChats); i++) {
      if (i <= idleChats) jobs.push(job(`idle chat ${i}`, false, `Hello, chat ${i}.`));
      if (i <= waitingChats) jobs.push(job(`tool call ${i} left pending`, true, `Weather in city number ${i}?`));
    }
    // Two at a time: a busy turn beside idle and waiting processes, as two clients of one desktop would.
    for (let i = 0; i < jobs.length; i += 2) {
      const two = jobs.slice(i, i + 2);
      phase = two.map((j) => j.label).join(' + ');
      const results = await Promise.all(two.map((j) => ask(proxy.url, j.body)));
      results.forEach((r, k) => {
        if (r.error || (two[k].tool ? r.stop !== 'tool_use' : r.stop === 'tool_use')) {
          raw.answers.errors++;
          raw.firstError ??= `${two[k].label}: ${r.error ?? `stop_reason ${r.stop}`}`;
        } else raw.answers[two[k].tool ? 'toolCalls' : 'idle']++;
      });
    }
    phase = 'left alone (the pool refills)';
    await sleep(settleMs);
    take();
    const { lastSeen, over } = attribute(raw, samples, (p) => isProbe.get(p) === true, started);
    // An over-cap sample is explained by a process on its way out when as many as the excess were gone within 2.5 s
    // (SIGTERM, then SIGKILL after 2 s): the registry no longer counted them.
    for (const o of over) {
      const left = o.pids.map((p) => (lastSeen.get(p) ?? o.at) - o.at).sort((x, y) => x - y);
      const extra = left[o.pids.length - liveMax - 1];
      if (extra !== undefined && extra < 2500 && raw.endCli <= liveMax) raw.explainedByExiting.push(extra);
    }
  } finally {
    clearInterval(timer);
    raw.seconds = (Date.now() - started) / 1000;
  }
  return raw;
}

/** The figures of the samples, the health probe's runs apart; when each engine process was last seen; the over-cap samples. */
function attribute(
  raw: LiveCapRaw,
  samples: Array<{ at: number; phase: string; rss: Map<number, number> }>,
  probe: (pid: number) => boolean,
  started: number,
) {
  const lastSeen = new Map<number, number>();
  const over: Array<{ at: number; pids: number[] }> = [];
  for (const { at, phase, rss } of samples) {
    const pids = [...rss.keys()].filter((p) => !probe(p));
    const probes = rss.size - pids.length;
    raw.peakProbeRuns = Math.max(raw.peakProbeRuns, probes);
    if (probes > 0) raw.samplesWithProbeRuns++;
    raw.samples++;
    raw.endCli = pids.length;
    raw.endRssBytes = pids.reduce((n, p) => n + (rss.get(p) ?? 0), 0);
    raw.peakRssBytes = Math.max(raw.peakRssBytes, raw.endRssBytes);
    for (const p of pids) lastSeen.set(p, at);
    if (pids.length > raw.liveMax) raw.overCap = over.push({ at, pids });
    if (pids.length > raw.peakCli)
      Object.assign(raw, { peakCli: pids.length, peakAtMs: at - started, peakDuring: phase });
  }
  return { lastSeen, over };
}

export async function runLiveCapWorkload(b: Bench): Promise<void> {
  const r = await inTempDir('bench-live-cap-', async (tmp) => {
    const note = '(k) the real CLI is not installed (npm run test:setup): not measured';
    const cli = await realCli(b, join(tmp, 'home'), note);
    if (typeof cli === 'string') return cli;
    try {
      await b.sim.setKnobs({ ...baseKnobs(), answerTools: true, toolInput: { city: 'Paris' }, toolCalls: 1 });
      b.log(`(k) real CLI, CLI_LIVE_MAX=${liveMax}: ${idleChats} idle chats, ${waitingChats} pending tool calls`);
      const env = { ...cli.env, CLI_LIVE_MAX: String(liveMax), CLI_POOL_SIZE: '1' };
      return await withProxy(b, { ...cli, env }, (proxy) => measure(proxy, cli));
    } finally {
      await b.sim.setKnobs(baseKnobs());
    }
  });
  b.raw.k = r;
  if (typeof r === 'string') return;
  const row = pairRow(
    `(k) real CLI, CLI_LIVE_MAX=${r.liveMax}, pool 1: ${idleChats} idle chats and ${waitingChats} tool calls left pending, 2 at a time`,
  );
  const MB = 2 ** 20;
  b.rows.push(
    row('peak CLI processes', 'count', r.peakCli, 'n/a', false),
    row('CLI processes at the end', 'count', r.endCli, 'n/a', false),
    row('peak processes under the proxy', 'count', r.peakDescendants, 'n/a', false),
    row('peak health-probe CLI runs beside them (not under the cap)', 'count', r.peakProbeRuns, 'n/a', false),
    row('peak RSS of the CLI processes', 'MB', r.peakRssBytes / MB, 'n/a', false),
    row('RSS of the CLI processes at the end', 'MB', r.endRssBytes / MB, 'n/a', false),
    row('samples above the cap', 'count', r.overCap, 'n/a', false),
    row('errors', 'count', r.answers.errors, 'n/a', false),
  );
  b.notes.push(
    `(k) ${r.samples} samples, ${samplePeriodMs} ms apart, in ${r.seconds.toFixed(1)} s; the peak of ${r.peakCli} CLI processes first at ${(r.peakAtMs / 1000).toFixed(1)} s, during: ${r.peakDuring}; answered ${r.answers.idle} plain, ${r.answers.toolCalls} tool calls`,
  );
  if (r.samplesWithProbeRuns > 0)
    b.notes.push(
      `(k) ${r.samplesWithProbeRuns} samples also saw the health probe's CLI runs (\`${defaultProfile.cli.versionArgs.join(' ')}\`, \`${defaultProfile.cli.authStatusArgs.join(' ')}\`; up to ${r.peakProbeRuns} at once), which hold no conversation and are outside CLI_LIVE_MAX: not counted above`,
    );
  const lived = r.explainedByExiting;
  if (r.overCap > 0)
    b.notes.push(
      `(k) ${r.overCap} samples (of ${r.samples}) saw more CLI processes than CLI_LIVE_MAX; in ${lived.length} of them the extra one was a process the proxy had already ended or let go, still exiting (gone ${lived.length ? `${Math.min(...lived)}–${Math.max(...lived)} ms` : 'n/a'} later)`,
    );
  if (r.firstError) b.notes.push(`(k) first error: ${r.firstError}`);
}
