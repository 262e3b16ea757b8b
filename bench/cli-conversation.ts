// The CLI alone holding a conversation (workload w): one process, print mode with stream-json in and out, one user
// message written to its stdin after each `result` line, as a user's own script would drive it turn after turn. The
// provider then receives the structured history, which its prompt cache can read. Times each turn from the write of
// its message to the first text delta.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { defaultProfile } from '../src/proxy/profile.js';
import { cliUserMessageLine } from '../src/proxy/translate/native-request-to-cli-input.js';

export interface CliTurn {
  /** ms from writing the turn (spawning the process, for the first) to its first text delta; undefined when none came. */
  ttftMs?: number;
  /** The answer's text, as the stream's text deltas carried it. */
  text: string;
  ok: boolean;
}

/** Runs `turns` through one CLI process; stops early (and says why) when a turn ends without a successful result. */
export async function runCliConversation(
  cliPath: string,
  model: string,
  turns: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  timeoutMs = 120_000,
): Promise<{ turns: CliTurn[]; error?: string }> {
  const { printArgs, modelFlag } = defaultProfile.cli;
  const child = spawn(cliPath, [...printArgs, modelFlag, model], { stdio: ['pipe', 'pipe', 'pipe'], env, cwd });
  const out: CliTurn[] = [];
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  let current: CliTurn | undefined;
  let startedAt = performance.now();
  let settle: ((ok: boolean) => void) | undefined;
  // readline is a tested line decoder with its own flush (STYLE.md habit 5).
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    let parsed: {
      type?: string;
      subtype?: string;
      is_error?: boolean;
      event?: { type?: string; delta?: { type?: string; text?: string } };
    };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      return;
    }
    if (!current) return;
    const delta =
      parsed.type === 'stream_event' && parsed.event?.type === 'content_block_delta' ? parsed.event.delta : undefined;
    if (delta?.type === 'text_delta' && typeof delta.text === 'string') {
      current.ttftMs ??= performance.now() - startedAt;
      current.text += delta.text;
    }
    if (parsed.type === 'result') settle?.(parsed.subtype === 'success' && parsed.is_error !== true);
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let error: string | undefined;
  try {
    for (const text of turns) {
      current = { text: '', ok: false };
      const result = new Promise<boolean>((resolve) => (settle = resolve));
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      const gone = exited.then(() => false);
      if (out.length > 0) startedAt = performance.now();
      child.stdin.write(cliUserMessageLine(text));
      current.ok = await Promise.race([result, timeout, gone]);
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
  return { turns: out, error };
}
