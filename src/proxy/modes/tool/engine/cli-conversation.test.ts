import { EventEmitter } from 'node:events';
import type { ResultPromise } from 'execa';
import { describe, expect, it } from 'vitest';
import { CliConversation } from './cli-conversation.js';

/** A child whose spawn failed the way node reports EMFILE: no pipes, `error` events, a failed result. */
function failedSpawn(code: string) {
  const events = new EventEmitter();
  const result = Promise.resolve({
    failed: true,
    exitCode: undefined,
    signal: undefined,
    code,
    shortMessage: `spawn ${code}`,
  });
  const child = Object.assign(result, {
    on: events.on.bind(events),
    once: events.once.bind(events),
    stdin: null,
    stdout: null,
    stderr: null,
    pid: undefined,
    exitCode: null,
    signalCode: null,
  });
  return { child: child as unknown as ResultPromise, events };
}

describe('CliConversation', () => {
  it('reads a spawn that failed for lack of file descriptors as an end with its code, and no error event escapes', async () => {
    const { child, events } = failedSpawn('EMFILE');
    const conv = new CliConversation(child, { key: 'k', model: 'm', fingerprint: 'f', now: () => 0 });
    // Emitted without a listener, an `error` event would end the process that runs the proxy.
    expect(() => {
      events.emit('error', Object.assign(new Error('spawn EMFILE'), { code: 'EMFILE' }));
      events.emit('error', Object.assign(new Error('spawn EMFILE'), { code: 'EMFILE' }));
    }).not.toThrow();
    expect(await conv.next()).toEqual({
      kind: 'end',
      end: { exitCode: undefined, signal: undefined, spawnError: 'EMFILE' },
    });
    await conv.exited;
    expect(conv.alive).toBe(false);
  });
});
