// Tool mode's floor (workload d): the fake CLI run directly, the way the proxy runs it (print mode, stream-json
// with partial messages, the prompt on stdin), timed to its first text delta. The proxy's time to first token on
// /v1/messages minus this is what the proxy adds beyond the CLI itself.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { defaultProfile } from '../src/proxy/profile.js';

export interface CliRun {
  /** ms from spawn to the first content_block_delta line; undefined when none came. */
  ttftMs?: number;
  totalMs: number;
  exitCode: number | null;
}

export function runCliOnce(cliPath: string, model: string, prompt: string): Promise<CliRun> {
  const started = performance.now();
  const { printArgs, modelFlag } = defaultProfile.cli;
  const child = spawn(cliPath, [...printArgs, modelFlag, model], { stdio: ['pipe', 'pipe', 'ignore'] });
  let ttftMs: number | undefined;
  // readline is a tested line decoder with its own flush (STYLE.md habit 5).
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    if (ttftMs !== undefined || !line.includes('content_block_delta')) return;
    try {
      const parsed = JSON.parse(line) as { type?: string; event?: { type?: string } };
      if (parsed.type === 'stream_event' && parsed.event?.type === 'content_block_delta') ttftMs = performance.now() - started;
    } catch {
      // not a JSON line: not a delta
    }
  });
  child.stdin.end(prompt);
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ ttftMs, totalMs: performance.now() - started, exitCode: code }));
    child.once('error', () => resolve({ ttftMs, totalMs: performance.now() - started, exitCode: null }));
  });
}
