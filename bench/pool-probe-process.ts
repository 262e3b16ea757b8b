// (p) The warm CLI pool, measured from a small process of its own (like cli-runner-process.ts: spawning from the
// bench process would charge every CLI start for forking a large parent). For one CLI it alternates, request by
// request: a cold start (spawn, prompt on stdin, time to the first text delta) and a request served by
// src/proxy/backends/cli-pool.ts (prompt written into a process the pool started earlier, timed from the take()).
// It also reads the resident memory of a warm CLI waiting on its stdin.
//   parent -> child { type: 'run', job: PoolJob }   child -> parent { type: 'result', result: PoolResult }

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CliPool, procRss } from '../src/proxy/backends/cli-pool.js';
import { defaultProfile } from '../src/proxy/profile.js';

export interface PoolJob {
  cliPath: string;
  model: string;
  prompt: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  requests: number;
  /** Pause before each request: how long the pool's process had to start (a user's think time is longer). */
  gapMs: number;
  timeoutMs: number;
  /**
   * How the prompt goes in: 'text' (what the proxy does today: the transcript on stdin; the pool primes each warm
   * process with a newline so the real CLI's 3 s stdin wait does not end it) or 'stream-json' (one user message line
   * with `--input-format stream-json`; the CLI waits for it without priming).
   */
  input: 'text' | 'stream-json';
}

export interface PoolResult {
  coldMs: number[];
  pooledMs: number[];
  coldErrors: number;
  pooledErrors: number;
  /** RSS of a warm CLI waiting on stdin, bytes, sampled once per pooled request. */
  idleRss: number[];
  firstError?: string;
  snapshot: unknown;
}

function timeToFirstDelta(child: ChildProcess, t0: number, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-400)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no text delta in ${timeoutMs} ms`));
    }, timeoutMs);
    const lines = createInterface({ input: child.stdout! });
    let done = false;
    lines.on('line', (line) => {
      if (done || !line.includes('content_block_delta')) return;
      try {
        const p = JSON.parse(line) as { type?: string; event?: { type?: string } };
        if (p.type === 'stream_event' && p.event?.type === 'content_block_delta') {
          done = true;
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
      } catch {
        // not JSON: not a delta
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (!done) reject(new Error(`exited (${code}) without a text delta: ${stderr.trim()}`));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function run(job: PoolJob): Promise<PoolResult> {
  const { printArgs, modelFlag } = defaultProfile.cli;
  const args = [...printArgs, modelFlag, job.model, ...(job.input === 'stream-json' ? ['--input-format', 'stream-json'] : [])];
  const payload = job.input === 'stream-json' ? JSON.stringify({ type: 'user', message: { role: 'user', content: job.prompt } }) + '\n' : job.prompt;
  // Text input: the real CLI gives up on a silent stdin after 3 s, so a lone newline goes in right after the spawn (the
  // pool no longer primes children itself: the proxy always feeds them stream-json, which waits without it).
  const start = (a: string[]) => spawn(job.cliPath, a, { cwd: job.cwd, env: job.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  const startPrimed = (a: string[]) => {
    const child = start(a);
    try {
      if (job.input === 'text') child.stdin!.write('\n');
    } catch {
      // a child whose stdin is already gone dies at once; the pool counts it
    }
    return child;
  };
  const pool = new CliPool<ChildProcess>({ size: 1, idleMs: 600_000, spawn: startPrimed, end: (c) => c.kill('SIGTERM'), rssOf: procRss });
  const res: PoolResult = { coldMs: [], pooledMs: [], coldErrors: 0, pooledErrors: 0, idleRss: [], snapshot: undefined };
  pool.take(args); // learn the key: the pool starts its first process now
  try {
    for (let i = 0; i < job.requests; i++) {
      await sleep(job.gapMs);
      // pooled: the process the pool started during the gap
      const rss = (pool.snapshot() as { rssBytes?: number }).rssBytes;
      if (rss) res.idleRss.push(rss);
      const t1 = performance.now();
      const warm = pool.take(args);
      try {
        if (!warm) throw new Error('the pool had no process ready');
        warm.stdin!.end(payload);
        res.pooledMs.push(await timeToFirstDelta(warm, t1, job.timeoutMs));
      } catch (err) {
        res.pooledErrors++;
        res.firstError ??= `pooled: ${(err as Error).message}`;
      }
      await sleep(Math.min(job.gapMs, 1000));
      // cold: what a chat does without the pool (the pool's replacement process is waiting meanwhile, as it would)
      const t0 = performance.now();
      const cold = start(args);
      cold.stdin!.end(payload);
      try {
        res.coldMs.push(await timeToFirstDelta(cold, t0, job.timeoutMs));
      } catch (err) {
        res.coldErrors++;
        res.firstError ??= `cold: ${(err as Error).message}`;
      }
    }
  } finally {
    res.snapshot = pool.snapshot();
    await pool.close();
  }
  return res;
}

process.on('message', (msg: { type: string; job: PoolJob }) => {
  if (msg?.type !== 'run') return;
  run(msg.job).then(
    (result) => process.send?.({ type: 'result', result }),
    (err: unknown) => process.send?.({ type: 'error', message: (err as Error).message }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
