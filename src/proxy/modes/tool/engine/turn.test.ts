import { describe, expect, it } from 'vitest';
import { answerLines, rateLimitLine, ScriptedProcess } from '../../../../../test/helpers/scripted-process.js';
import { ProxyError } from '../../../errors.js';
import type { NativeStreamEvent } from '../../../formats/native.js';
import { createLogger } from '../../../logger.js';
import { createProfile } from '../../../profile.js';
import { endError } from './chat-deadlines.js';
import type { CliConversation } from './cli-conversation.js';
import { runTurn, type Taken, type TurnBilling, type TurnHost, type TurnRequest, type TurnSource } from './turn.js';

const profile = createProfile({});

/** The engine's side of the loop: slots counted, lost processes listed. */
function host() {
  const seen = { slots: 0, released: 0, lost: [] as Array<[CliConversation, boolean]> };
  const h: TurnHost = {
    profile,
    acquireSlot: () => {
      seen.slots++;
      return Promise.resolve(() => void seen.released++);
    },
    lost: (proc, continued) => void seen.lost.push([proc, continued]),
    endError: (error, end, tail) => endError(error, end, tail, profile.cli.installHint),
  };
  return { h, seen };
}

function request(billing?: TurnBilling, signal = new AbortController().signal): TurnRequest {
  return {
    req: { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
    signal,
    log: createLogger('silent'),
    billing,
    deadlines: {
      firstEventMs: 10_000,
      requestMs: 10_000,
      firstEventError: () => new ProxyError('timeout', 'first event'),
      track: () => () => undefined,
    },
    whole: false,
  };
}

/** A source that takes `taken` (if any), starts `fresh` ones in turn, and keeps what finishes when `keep`. */
function source(taken: Taken | undefined, fresh: ScriptedProcess[], keep = true) {
  const kept: CliConversation[] = [];
  const s: TurnSource = {
    take: () => Promise.resolve(taken),
    fresh: () => {
      const p = fresh.shift();
      if (!p) throw new Error('no fresh process left');
      p.begin(0);
      return Promise.resolve(p.asConversation());
    },
    translate: () => ({}),
    finished: (proc) => (keep && kept.push(proc), keep),
    paused: () => false,
  };
  return { s, kept };
}

async function collect(events: AsyncIterable<NativeStreamEvent>): Promise<NativeStreamEvent[]> {
  const out: NativeStreamEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

const text = (events: NativeStreamEvent[]) =>
  events.map((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : '')).join('');

describe('runTurn', () => {
  it("reads a process's turn into native events; a process its source keeps stays alive and frees its slot", async () => {
    const { h, seen } = host();
    const proc = new ScriptedProcess(answerLines);
    const { s, kept } = source(undefined, [proc]);
    const events = await collect(runTurn(h, request(), s));
    expect(text(events)).toBe('Hi from fake!');
    expect(events.at(-1)?.type).toBe('message_stop');
    expect(kept).toEqual([proc]);
    expect(proc.how).toBeUndefined();
    expect(seen).toMatchObject({ slots: 1, released: 1 });
  });

  it('closes the input of a finished process its source does not keep: the CLI exits by itself', async () => {
    const { h } = host();
    const proc = new ScriptedProcess(answerLines);
    const { s } = source(undefined, [proc], false);
    await collect(runTurn(h, request(), s));
    expect(proc.how).toBe('finished');
  });

  it('answers with a fresh process, once, when a taken one ended before anything reached the client', async () => {
    const { h, seen } = host();
    const dead = new ScriptedProcess([], { exitCode: 1 });
    dead.begin(0);
    const fresh = new ScriptedProcess(answerLines);
    const { s } = source({ proc: dead.asConversation(), how: 'continued' }, [fresh]);
    const events = await collect(runTurn(h, request(), s));
    expect(text(events)).toBe('Hi from fake!');
    expect(seen.lost).toEqual([[dead, true]]);
    // The dead one's slot was freed at its exit; the fresh one took a slot of its own.
    expect(seen.slots).toBe(2);
  });

  it("reports a fresh process that exited by itself without a result as the CLI's failure, not replaced", async () => {
    const { h, seen } = host();
    const proc = new ScriptedProcess([], { exitCode: 3 });
    const { s } = source(undefined, [proc]);
    await expect(collect(runTurn(h, request(), s))).rejects.toMatchObject({
      kind: 'upstream',
      message: expect.stringContaining('exited with code 3') as string,
    });
    expect(seen.lost).toEqual([]);
  });

  it("sends the turn's rate-limit lines to the request's billing sink, and carries the last lane when none is printed", async () => {
    const { h } = host();
    const limits: unknown[] = [];
    const carried: string[] = [];
    const billing: TurnBilling = {
      cliRateLimit: (info) => void limits.push(info),
      cliLaneCarried: (lane) => void carried.push(lane),
    };
    const first = new ScriptedProcess([rateLimitLine, ...answerLines]);
    await collect(runTurn(h, request(billing), source(undefined, [first]).s));
    expect(limits).toHaveLength(1);
    expect(first.lane).toBeDefined();
    expect(carried).toEqual([]);
    // The next turn of the same process prints no rate_limit_event: it was billed to the same lane.
    const again = new ScriptedProcess(answerLines);
    again.lane = first.lane;
    again.begin(0);
    await collect(runTurn(h, request(billing), source({ proc: again.asConversation(), how: 'continued' }, []).s));
    expect(carried).toEqual([first.lane]);
  });

  it('ends the process of a client that went away, and frees its slot', async () => {
    const { h, seen } = host();
    const client = new AbortController();
    const proc = new ScriptedProcess(answerLines.slice(0, 4));
    const turn = runTurn(h, request(undefined, client.signal), source(undefined, [proc]).s);
    const it1 = turn[Symbol.asyncIterator]();
    await it1.next();
    client.abort(new Error('client disconnected'));
    await expect(collect({ [Symbol.asyncIterator]: () => it1 })).rejects.toThrow('The chat was cancelled');
    expect(proc.how).toBe('ended');
    expect(seen.released).toBe(1);
  });
});
