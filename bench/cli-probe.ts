// Tool mode's floor (workloads d and p): the CLI run directly, the way the proxy runs it (print mode, stream-json
// in and out with partial messages, the prompt on stdin), timed to its first text delta. The proxy's time to first token on
// /v1/messages minus this is what the proxy adds beyond the CLI itself.

import { fork, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { defaultProfile } from '../src/proxy/profile.js';
import { cliUserMessageLine } from '../src/proxy/translate/native-request-to-cli-input.js';

export interface CliRun {
  /** ms from spawn to the first content_block_delta line; undefined when none came. */
  ttftMs?: number;
  totalMs: number;
  exitCode: number | null;
}

/**
 * `env` should be what the proxy gives its child: the proxy runs with a small environment, and a large one costs
 * the CLI's own start (NODE_EXTRA_CA_CERTS, for one, makes every Node start parse a CA bundle: ~30 ms here).
 */
export function runCliOnce(cliPath: string, model: string, prompt: string, env: NodeJS.ProcessEnv): Promise<CliRun> {
  const started = performance.now();
  const { printArgs, modelFlag } = defaultProfile.cli;
  const child = spawn(cliPath, [...printArgs, modelFlag, model], { stdio: ['pipe', 'pipe', 'ignore'], env });
  let ttftMs: number | undefined;
  // readline is a tested line decoder with its own flush (STYLE.md habit 5).
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (ttftMs !== undefined || !line.includes('content_block_delta')) return;
    try {
      const parsed = JSON.parse(line) as { type?: string; event?: { type?: string } };
      if (parsed.type === 'stream_event' && parsed.event?.type === 'content_block_delta')
        ttftMs = performance.now() - started;
    } catch {
      // not a JSON line: not a delta
    }
  });
  // As the proxy writes it: one stream-json user message (translate/native-request-to-cli-input.ts).
  child.stdin.end(cliUserMessageLine(prompt));
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ ttftMs, totalMs: performance.now() - started, exitCode: code }));
    child.once('error', () => resolve({ ttftMs, totalMs: performance.now() - started, exitCode: null }));
  });
}

export interface CliRunner {
  run(cliPath: string, model: string, prompt: string, env: NodeJS.ProcessEnv): Promise<CliRun>;
  stop(): void;
}

/** A child process (cli-runner-process.ts) that spawns the CLI on request and times it. */
export async function startCliRunner(): Promise<CliRunner> {
  const child = fork(new URL('./cli-runner-process.ts', import.meta.url).pathname, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`CLI runner exited (${code}) at start`)));
    child.once('message', () => resolve());
  });
  let nextId = 0;
  const pending = new Map<number, (run: CliRun) => void>();
  child.on('message', (m: { type: string; id: number; run: CliRun }) => {
    if (m.type === 'result') pending.get(m.id)?.(m.run);
  });
  return {
    run(cliPath, model, prompt, env) {
      const id = ++nextId;
      return new Promise((resolve) => {
        pending.set(id, (run) => {
          pending.delete(id);
          resolve(run);
        });
        child.send({ type: 'run', id, cliPath, model, prompt, env });
      });
    },
    stop() {
      if (child.connected) child.disconnect();
    },
  };
}
