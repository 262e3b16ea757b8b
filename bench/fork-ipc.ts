// A small process of the bench's own, forked from a TypeScript file through tsx, that answers messages over the IPC
// channel: the simulator (servers.ts) and the CLI runner (cli.ts). This file imports nothing of the bench, so the
// CLI runner that loads it stays small (cli.ts says why that matters).

import { fork } from 'node:child_process';

/**
 * Forks a TypeScript file of the bench (through tsx) with an IPC channel and waits for its first message; `ask`
 * sends a message with a fresh id and resolves with the answer that carries it back.
 */
export async function forkIpc<Ready, Answer>(file: string, args: string[] = [], advanced = false) {
  const child = fork(file, args, {
    cwd: new URL('..', import.meta.url).pathname,
    execArgv: ['--import', 'tsx'],
    // structured clone keeps `chunkCount: undefined` (one piece per word), which JSON would drop
    serialization: advanced ? 'advanced' : 'json',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before it was ready`)));
    child.once('message', (m) => resolve(m as Ready));
  });
  let nextId = 0;
  const pending = new Map<number, (m: Answer) => void>();
  child.on('message', (m: Answer & { id: number }) => pending.get(m.id)?.(m));
  const ask = (msg: Record<string, unknown>): Promise<Answer> =>
    new Promise((resolve) => {
      const id = ++nextId;
      pending.set(id, (m) => (pending.delete(id), resolve(m)));
      child.send({ ...msg, id });
    });
  return { child, ready, ask };
}
