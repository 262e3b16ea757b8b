import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { makeFakeCli, type FakeCli } from '../../../../../test/fixtures/fake-cli.js';
import { FakeProcess } from '../../../../../test/helpers/fake-process.js';
import { CliConversation } from './cli-conversation.js';
import { procRss } from './proc-facts.js';
import { CliProcesses } from './processes.js';
import type { RegisteredProcess } from './process-state.js';
import type { CliProcessesOptions } from './registry-types.js';
import { WarmPool, type WarmPoolOptions } from './warm-pool.js';

/** The pool's default key of an argument list. */
const specKey = (args: string[]): string => JSON.stringify(args);

const print = ['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
const argsFor = (model: string, system?: string): string[] => [
  ...print,
  '--model',
  model,
  ...(system ? ['--system-prompt', system] : []),
];

/** A warm process that only exists in memory, with the spec it was started with. */
class StubProcess extends FakeProcess {
  static nextPid = 1000;
  constructor(
    readonly args: string[],
    fingerprint: string,
  ) {
    super(specKey(args), fingerprint, StubProcess.nextPid++, Date.now());
  }
}

/** The pool refills on the next turn of the event loop (after the taker wrote its prompt). */
const flush = () => new Promise<void>((r) => setImmediate(r));

/** take(), then the pool's refill turn. */
async function take<C extends RegisteredProcess>(pool: WarmPool<C>, args: string[]): Promise<C | undefined> {
  const child = pool.take(args);
  await flush();
  return child;
}

type StubOptions = Partial<Omit<WarmPoolOptions<StubProcess>, 'registry' | 'spawn'>> &
  Pick<CliProcessesOptions<StubProcess>, 'fingerprint' | 'maxRssBytes' | 'rssOf'> & {
    max?: number;
    spawn?: WarmPoolOptions<StubProcess>['spawn'];
  };

function stubPool(over: StubOptions = {}) {
  const spawned: StubProcess[] = [];
  const idleMs = over.idleMs ?? 60_000;
  const registry: CliProcesses<StubProcess> = new CliProcesses<StubProcess>({
    max: over.max ?? 0,
    idleMs: 60_000,
    warmMs: idleMs,
    fingerprint: over.fingerprint,
    maxRssBytes: over.maxRssBytes,
    rssOf: over.rssOf,
    onWarmEnded: (c, why) => pool.ended(c, why),
  });
  const pool: WarmPool<StubProcess> = new WarmPool<StubProcess>({
    size: 2,
    registry,
    spawn: (args) => {
      const c = new StubProcess(args, over.fingerprint?.() ?? 'fp1');
      spawned.push(c);
      return c;
    },
    ...over,
    idleMs,
  });
  return {
    pool,
    registry,
    spawned,
    ended: () => spawned.filter((c) => c.ended),
    alive: () => spawned.filter((c) => !c.ended),
  };
}

describe('WarmPool with in-memory processes', () => {
  it('is off at size 0: never starts a process and never hands one out', async () => {
    const { pool, spawned } = stubPool({ size: 0 });
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    expect(spawned).toHaveLength(0);
    expect(pool.snapshot()).toMatchObject({ enabled: false, warm: 0, hits: 0, misses: 0 });
  });

  it('learns the argv of a request, starts processes with exactly that argv, and hands each out once', async () => {
    const { pool, spawned } = stubPool({ size: 1 });
    const args = argsFor('claude-x', 'You are terse.');
    expect(await take(pool!, args)).toBeUndefined(); // first sight: a miss, and a process is started for next time
    expect(spawned).toHaveLength(1);
    expect(spawned[0].args).toEqual(args);
    const first = await take(pool!, args);
    expect(first).toBe(spawned[0]);
    // Used once, then replaced: the next request gets a different, fresh process.
    expect(spawned).toHaveLength(2);
    const second = await take(pool!, args);
    expect(second).toBe(spawned[1]);
    expect(second).not.toBe(first);
    expect(pool.snapshot()).toMatchObject({ hits: 2, misses: 1, started: 3, warm: 1 });
  });

  it('never hands a process to a request whose model or system prompt differs', async () => {
    const { pool } = stubPool({ size: 3 });
    await take(pool!, argsFor('m1', 'A'));
    expect(await take(pool!, argsFor('m1', 'B'))).toBeUndefined();
    expect(await take(pool!, argsFor('m2', 'A'))).toBeUndefined();
    const c = (await take(pool!, argsFor('m1', 'A'))) as StubProcess | undefined;
    expect(c?.args).toEqual(argsFor('m1', 'A'));
  });

  it('keeps at most size processes, the most frequent keys first', async () => {
    const { pool, alive } = stubPool({ size: 2 });
    const taken = new Set<StubProcess | undefined>();
    for (let i = 0; i < 3; i++) taken.add(await take(pool!, argsFor('hot')));
    taken.add(await take(pool!, argsFor('warm')));
    taken.add(await take(pool!, argsFor('cold')));
    const waiting = alive().filter((c) => !taken.has(c));
    expect(waiting).toHaveLength(2);
    const models = waiting.map((c) => c.args[c.args.indexOf('--model') + 1]).sort();
    // 'hot' is the most frequent, 'cold' the most recent of the ones seen once.
    expect(models).toEqual(['cold', 'hot']);
    expect(pool.snapshot().warm).toBe(2);
  });

  it('ends a process unused for idleMs and does not replace it until traffic asks again', async () => {
    const { pool, spawned, ended } = stubPool({ size: 1, idleMs: 50 });
    await take(pool!, argsFor('m1'));
    expect(spawned).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 120));
    expect(ended()).toContain(spawned[0]);
    expect(spawned).toHaveLength(1);
    expect(pool.snapshot()).toMatchObject({ warm: 0, expired: 1 });
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    expect(spawned).toHaveLength(2);
  });

  it('replaces every warm process when the login or settings fingerprint changes', async () => {
    let fp = 'login-1';
    const { pool, spawned, ended } = stubPool({ size: 1, fingerprint: () => fp });
    await take(pool!, argsFor('m1'));
    const old = spawned[0];
    fp = 'login-2';
    // The process started under the old login is never handed out.
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    expect(ended()).toContain(old);
    expect(spawned).toHaveLength(2);
    expect(await take(pool!, argsFor('m1'))).toBe(spawned[1]);
    expect(pool.snapshot().replaced).toBe(1);
  });

  it('does not start a process the memory cap has no room for', async () => {
    const { pool, alive } = stubPool({ size: 3, maxRssBytes: 250, rssOf: () => 100 });
    await take(pool!, argsFor('m1')); // one started; its size is learned when it is measured
    await take(pool!, argsFor('m2'));
    await take(pool!, argsFor('m3'));
    expect(alive().length).toBeLessThanOrEqual(2);
    const snap = pool.snapshot();
    expect(snap.skippedForMemory).toBeGreaterThan(0);
    expect(snap.rssBytes).toBeLessThanOrEqual(250);
  });

  it('starts nothing when the cap on every process is reached, and ends no other process for it', async () => {
    const { pool, registry, spawned } = stubPool({ size: 1, max: 1 });
    const busy = new StubProcess(argsFor('busy'), 'fp1');
    registry.track(busy);
    expect(await take(pool, argsFor('m1'))).toBeUndefined();
    expect(spawned).toHaveLength(0);
    expect(busy.ended).toBe(false);
    expect(pool.snapshot()).toMatchObject({ skippedForCap: 1, warm: 0 });
  });

  it('skips a warm process that died while waiting, and pauses after repeated early deaths', async () => {
    const { pool, spawned } = stubPool({ size: 1 });
    await take(pool!, argsFor('m1'));
    spawned[0].die();
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    spawned[1].die();
    await take(pool!, argsFor('m1'));
    spawned[2].die();
    await flush();
    const snap = pool.snapshot();
    expect(snap.died).toBe(3);
    expect(snap.pausedUntil).toBeGreaterThan(Date.now());
    const before = spawned.length;
    await take(pool!, argsFor('m1'));
    expect(spawned.length).toBe(before); // paused: no respawn loop
  });

  it('starts its replacement after the taker has its child, and nothing once closed', async () => {
    const { pool, spawned } = stubPool({ size: 1 });
    pool.take(argsFor('m1'));
    expect(spawned).toHaveLength(0); // not inside take(): the request writes its prompt first
    pool.close();
    await flush();
    expect(spawned).toHaveLength(0);
  });

  it('shows models and counts in its snapshot, never the system prompt', async () => {
    const { pool } = stubPool({ size: 1 });
    await take(pool!, argsFor('claude-sonnet-x', 'secret-ish system prompt text'));
    const snap = pool.snapshot();
    expect(snap.keys).toEqual([
      { model: 'claude-sonnet-x', id: expect.stringMatching(/^[0-9a-f]{8}$/), recentRequests: 1, warm: 1 },
    ]);
    expect(JSON.stringify(snap)).not.toContain('secret-ish');
  });

  it('a spawn that throws counts as an early death, not a crash of the request', async () => {
    const { pool } = stubPool({
      size: 1,
      idleMs: 1000,
      spawn: () => {
        throw new Error('ENOENT');
      },
    });
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    expect(await take(pool!, argsFor('m1'))).toBeUndefined();
    expect(pool.snapshot().warm).toBe(0);
  });
});

describe('WarmPool with the fake CLI', () => {
  let cli: FakeCli | undefined;
  let real: { pool: WarmPool<CliConversation>; registry: CliProcesses<CliConversation> } | undefined;
  afterEach(async () => {
    real?.pool.close();
    await real?.registry.close();
    await cli?.cleanup();
    real = undefined;
    cli = undefined;
  });

  function realPool(path: string, size = 1): WarmPool<CliConversation> {
    const registry: CliProcesses<CliConversation> = new CliProcesses<CliConversation>({
      max: 0,
      idleMs: 60_000,
      warmMs: 60_000,
      rssOf: procRss,
      onWarmEnded: (c, why) => pool.ended(c, why),
    });
    const pool: WarmPool<CliConversation> = new WarmPool<CliConversation>({
      size,
      idleMs: 60_000,
      registry,
      spawn: (args) =>
        new CliConversation(execa(path, args, { stdin: 'pipe', buffer: false, reject: false }), {
          key: specKey(args),
          model: 'm',
          fingerprint: '',
          now: Date.now,
        }),
    });
    real = { pool, registry };
    return pool;
  }

  async function answer(c: CliConversation, prompt: string): Promise<string> {
    c.write(prompt);
    c.endInput();
    let out = '';
    for (let item = await c.next(); item.kind === 'line'; item = await c.next()) out += `${item.line}\n`;
    return out;
  }

  it('hands over a started CLI whose stdin is still open; the prompt written then is answered', async () => {
    cli = await makeFakeCli({ echo: true });
    const pool = realPool(cli.path);
    const args = argsFor('claude-x', 'Be brief.');
    expect(await take(pool!, args)).toBeUndefined();
    const child = await take(pool!, args);
    expect(child).toBeDefined();
    const out = await answer(child!, 'ping from the pool test');
    expect(out).toContain('ping from the pool test');
    const records = await cli.records();
    const rec = records.find((r) => r.pid === child!.pid);
    expect(rec?.argv).toEqual(args);
    expect(rec?.stdin).toBe('ping from the pool test');
  });

  it('measures the RSS of its idle processes and ends every one of them on close', async () => {
    cli = await makeFakeCli({});
    const pool = realPool(cli.path, 2);
    await take(pool!, argsFor('a'));
    await take(pool!, argsFor('b'));
    await new Promise((r) => setTimeout(r, 300));
    const snap = pool.snapshot();
    expect(snap.warm).toBe(2);
    expect(snap.rssBytes).toBeGreaterThan(1024 * 1024);
    const pids = (await cli.records().catch(() => [])).map((r) => r.pid);
    pool.close();
    await real!.registry.close();
    real = undefined;
    expect(pids.every((pid) => !isRunning(pid))).toBe(true);
  });
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
