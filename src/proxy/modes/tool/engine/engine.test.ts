// The engine through its face (cli-backend.ts), with the fake CLI: input errors before any process, who counts as a
// child, where a request's billing goes, and shutdown.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeFakeCli, type FakeCli, type FakeCliKnobs } from '../../../../../test/fixtures/fake-cli.js';
import { childEnv, waitFor } from '../../../../../test/helpers/tool-proxy.js';
import { validateSettings, type Settings } from '../../../config.js';
import type { NativeRequest } from '../../../formats/native.js';
import { createLogger } from '../../../logger.js';
import { createProfile } from '../../../profile.js';
import type { BillingFacts } from '../../../usage/types.js';
import type { BackendContext } from '../../../chat/backend.js';
import { CliBackend } from './cli-backend.js';

const model = 'assistant-sonnet-4-20250514';
let cli: FakeCli | undefined;
let base: string | undefined;
let backend: CliBackend | undefined;

afterEach(async () => {
  await backend?.close();
  await cli?.cleanup();
  if (base) await rm(base, { recursive: true, force: true });
  backend = cli = base = undefined;
});

async function start(settings: Settings = {}, knobs: FakeCliKnobs = {}): Promise<CliBackend> {
  const fake = (cli = await makeFakeCli(knobs));
  base = await mkdtemp(join(tmpdir(), 'engine-'));
  const profile = createProfile({});
  const config = validateSettings(
    { cliPath: fake.path, cliWorkDir: join(base, 'work'), dataDir: join(base, 'data'), ...settings },
    profile,
  );
  backend = new CliBackend({
    config,
    profile,
    logger: createLogger('silent'),
    findCli: () => ({ path: fake.path, searched: [] }),
    cliEnv: childEnv,
  });
  return backend;
}

async function chat(b: CliBackend, req: Partial<NativeRequest> = {}, context: BackendContext = {}): Promise<number> {
  let events = 0;
  const full = { model, max_tokens: 20, messages: [{ role: 'user' as const, content: 'hi' }], ...req };
  for await (const _ of b.stream(full, new AbortController().signal, context)) events++;
  return events;
}

describe('the CLI engine', () => {
  it("throws a request's input error from stream(), before any slot or process is taken", async () => {
    const b = await start();
    expect(() => b.stream({ model: 'bad\0model', max_tokens: 5, messages: [] }, new AbortController().signal)).toThrow(
      /must not contain a NUL/,
    );
    expect(b.slotCounts()).toMatchObject({ running: 0, waiting: 0 });
    expect(await cli!.chatRecords()).toEqual([]);
  });

  it('counts as children the processes a request read, not the warm ones; shutdown ends them all', async () => {
    const b = await start({ cliPoolSize: 1, cliLiveMax: 4 });
    expect(await chat(b)).toBeGreaterThan(0);
    // Kept idle for the next turn: one child. The pool has started a warm one for the next request like it.
    expect(await waitFor(() => b.poolSnapshot().started === 1)).toBe(true);
    expect(b.liveSnapshot()).toMatchObject({ live: 1, idle: 1 });
    expect(b.childCount()).toBe(1);
    expect(await waitFor(async () => (await cli!.alivePids()).length === 2)).toBe(true);
    await b.close();
    expect(b.childCount()).toBe(0);
    expect(await cli!.alivePids()).toEqual([]);
  });

  it("tells the request's own observer who paid, through the turn's request, not a table by signal", async () => {
    const b = await start({ cliLiveMax: 4 }, { env: { FAKE_CLI_TURN_LANES: 'plan,' } });
    const seen = (): { limits: unknown[]; carried: string[]; billing: BillingFacts } => {
      const limits: unknown[] = [];
      const carried: string[] = [];
      return {
        limits,
        carried,
        billing: {
          providerAnswer: () => undefined,
          cliRateLimit: (info) => void limits.push(info),
          cliLaneCarried: (lane) => void carried.push(lane),
        },
      };
    };
    const first = seen();
    await chat(b, {}, { billing: first.billing });
    expect(first.limits).toHaveLength(1);
    expect(first.carried).toEqual([]);
    // The same process's next turn prints no rate_limit_event: the lane it last reported is carried to this request.
    const second = seen();
    await chat(
      b,
      {
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'Hi from fake!' },
          { role: 'user', content: 'again' },
        ],
      },
      { billing: second.billing },
    );
    expect(b.liveSnapshot()).toMatchObject({ continued: 1 });
    expect(second.limits).toEqual([]);
    expect(second.carried).toEqual(['plan']);
  });
});
