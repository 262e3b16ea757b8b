// The CLI run alone, the way tool mode runs it (print mode, stream-json in and out): one process, one user message
// written to its stdin after each `result` line, each turn timed from that write (the first from the spawn) to its
// first text delta: tool mode's floor (workloads d, p and w). `startCliRunner` runs it from a small process of its own
// (this file, forked): spawning from the bench process would charge the CLI for forking a large parent (the load
// generator's heap), which the proxy does not pay; the comparison would then flatter the proxy.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { defaultProfile } from '../src/proxy/profile.js';
import { cliUserMessageLine } from '../src/proxy/modes/tool/translate/native-request-to-cli-input.js';
import { forkIpc } from './fork-ipc.js';

interface CliTurn {
  /** ms to the first text delta; undefined when none came. */
  ttftMs?: number;
  text: string;
  ok: boolean;
}

interface CliRun {
  turns: CliTurn[];
  exitCode: number | null;
  /** Why the run stopped early: a turn ended without a successful result. */
  error?: string;
}

/**
 * `env` should be what the proxy gives its child: the proxy runs with a small environment, and a large one costs
 * the CLI's own start (NODE_EXTRA_CA_CERTS, for one, makes every Node start parse a CA bundle: ~30 ms here).
 */
export async function runCli(
  cliPath: string,
  model: string,
  turns: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
  timeoutMs = 120_000,
): Promise<CliRun> {
  let startedAt = performance.now();
  const { printArgs, modelFlag } = defaultProfile.cli;
  const child = spawn(cliPath, [...printArgs, modelFlag, model], { stdio: ['pipe', 'pipe', 'pipe'], env, cwd });
  const out: CliTurn[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  let current: CliTurn | undefined;
  let settle: ((ok: boolean) => void) | undefined;
  type Delta = { type?: string; text?: string };
  type Line = { type?: string; subtype?: string; is_error?: boolean; event?: { type?: string; delta?: Delta } };
  // readline is a tested line decoder with its own flush (docs/principles.md "Reading streams").
  createInterface({ input: child.stdout }).on('line', (line) => {
    let parsed: Line;
    try {
      parsed = JSON.parse(line) as Line;
    } catch {
      return;
    }
    const delta =
      parsed.type === 'stream_event' && parsed.event?.type === 'content_block_delta' ? parsed.event.delta : undefined;
    if (current && delta?.type === 'text_delta' && typeof delta.text === 'string') {
      current.ttftMs ??= performance.now() - startedAt;
      current.text += delta.text;
    }
    if (parsed.type === 'result') settle?.(parsed.subtype === 'success' && parsed.is_error !== true);
  });
  let exitCode: number | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('close', (code) => resolve(void (exitCode = code)));
    child.once('error', () => resolve());
  });
  let error: string | undefined;
  try {
    for (const text of turns) {
      current = { text: '', ok: false };
      const result = new Promise<boolean>((resolve) => (settle = resolve));
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      if (out.length > 0) startedAt = performance.now();
      // As the proxy writes it: one stream-json user message.
      child.stdin.write(cliUserMessageLine(text));
      current.ok = await Promise.race([result, timeout, exited.then(() => false)]);
      out.push(current);
      if (!current.ok) {
        error = `turn ${out.length} ended without a successful result: ${stderr.trim().slice(-300) || 'no stderr'}`;
        break;
      }
    }
  } finally {
    child.stdin.end();
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  }
  return { turns: out, exitCode, error };
}

export interface CliRunner {
  /** One prompt through a fresh CLI process: its time to first text, undefined when it failed. */
  ttft(cliPath: string, model: string, prompt: string, env: NodeJS.ProcessEnv): Promise<number | undefined>;
  stop(): void;
}

/** parent -> child { id, cliPath, model, prompt, env }; child -> parent { id, ttftMs } */
export async function startCliRunner(): Promise<CliRunner> {
  const { child, ask } = await forkIpc<unknown, { ttftMs?: number }>(new URL(import.meta.url).pathname, ['runner']);
  return {
    ttft: async (cliPath, model, prompt, env) => (await ask({ cliPath, model, prompt, env })).ttftMs,
    stop: () => void (child.connected && child.disconnect()),
  };
}

if (process.argv[2] === 'runner' && process.send) {
  type Ask = { id: number; cliPath: string; model: string; prompt: string; env: NodeJS.ProcessEnv };
  process.on('message', (m: Ask) => {
    void runCli(m.cliPath, m.model, [m.prompt], m.env).then((r) => {
      const ttftMs = r.exitCode === 0 && r.turns[0]?.ok ? r.turns[0].ttftMs : undefined;
      process.send?.({ id: m.id, ttftMs });
    });
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ ready: true });
}
