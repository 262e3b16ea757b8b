// CLI faults in tool mode (/v1/chat/completions, /compat/v1/chat/completions, /v1/messages, streamed or not), with
// the fake CLI's scenarios (test/fixtures/fake-cli.mjs): a crash before any output, a crash mid-answer, a hang, a
// hang that ignores SIGTERM, garbage lines between the real ones, an exit without output, the provider's 529
// through the CLI, and a slow drip of tokens. Each ends in a clear error in the route's shape (or, for garbage
// and a drip, in the normal answer), with no CLI child left running and the proxy still serving
// (docs/reliability.md "Fault injection"). A CLI failure may be a 500 (docs/interface.md "General errors"), so a
// 500 is accepted here only when its message names the CLI.

import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCli, FakeCliKnobs } from './fixtures/fake-cli.js';
import type { TestProxy } from './helpers/proxy.js';
import { eventually, sendRaw, startBed, type Bed, type RawAnswer } from './fuzz/bed.js';
import { clearErrorProblem, errorAnswerProblem, parseSseText, streamError } from './fuzz/shapes.js';

const body = {
  model: 'assistant-sonnet-4-20250514',
  max_tokens: 50,
  messages: [{ role: 'user', content: 'Say hello' }],
};
const paths = ['/v1/chat/completions', '/compat/v1/chat/completions', '/v1/messages'];
const cases = paths.flatMap((path) => [false, true].map((stream) => ({ path, stream })));

let bed: Bed;

beforeAll(async () => {
  bed = await startBed({
    settings: { modes: ['tool'], cliFirstTokenTimeoutMs: 1_000, requestTimeoutMs: 6_000, cliMaxConcurrent: 2 },
  });
});

afterAll(async () => {
  await bed?.close();
});

function post(url: string, path: string, payload: unknown): Promise<RawAnswer> {
  return sendRaw(
    url,
    { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) },
    15_000,
  );
}

/** A clear error; a 500 only when it says the CLI failed (docs/interface.md "General errors"). */
function cliErrorProblem(path: string, answer: RawAnswer): string | undefined {
  // 502: the CLI ended without its answer (an upstream failed); 500: a setting of ours the CLI could not use.
  if (answer.status === 500 || answer.status === 502) {
    const shape = errorAnswerProblem(path, 'POST', answer);
    if (shape) return shape;
    return /CLI/.test(answer.text)
      ? undefined
      : `${answer.status} that does not name the CLI: ${answer.text.slice(0, 200)}`;
  }
  const events = answer.status === 200 ? parseSseText(answer.text) : [];
  const inStream = streamError(events);
  if (inStream && !/CLI|provider/.test(JSON.stringify(inStream.body)))
    return `in-stream error that names neither the CLI nor the provider: ${JSON.stringify(inStream.body)}`;
  return clearErrorProblem(path, answer);
}

async function expectNothingLeft(cli: FakeCli, proxy: TestProxy): Promise<void> {
  // ignore-sigterm children need the SIGKILL after the grace period (modes/tool/engine/end-child.ts).
  expect(await eventually(async () => (await cli.alivePids()).length === 0, 6_000), 'CLI children left running').toBe(
    true,
  );
  expect((await fetch(`${proxy.url}/v1/models`)).status).toBe(200);
  const health = await fetch(`${proxy.url}/health/detailed`);
  expect(health.headers.get('content-type')).toMatch(/application\/json/);
}

/** Runs every route, streamed and not, against a proxy whose CLI has these knobs (or is this executable). */
async function underFault(
  cliKnobs: FakeCliKnobs | string,
): Promise<{ proxy: TestProxy; cli: FakeCli; answers: Array<{ path: string; stream: boolean; answer: RawAnswer }> }> {
  const { proxy, cli } =
    typeof cliKnobs === 'string' ? await bed.sibling({ cliPath: cliKnobs }) : await bed.sibling({}, cliKnobs);
  const answers = [];
  // Sequential, more requests than CLI slots (2): a slot a failure did not give back shows up as a 429 or a hang.
  for (const c of cases) answers.push({ ...c, answer: await post(proxy.url, c.path, { ...body, stream: c.stream }) });
  return { proxy, cli, answers };
}

describe('tool mode under CLI faults', () => {
  it.each([
    ['crashes before any output', { scenario: 'crash' }],
    ['crashes mid-answer', { scenario: 'crash-mid' }],
    ['hangs after its first line', { scenario: 'hang' }],
    ['hangs and ignores SIGTERM', { scenario: 'ignore-sigterm' }],
    ['reports the provider overloaded (529)', { scenario: 'e529' }],
  ] as Array<[string, FakeCliKnobs]>)('the CLI %s: a clear error on every route, no child left', async (_, knobs) => {
    const { proxy, cli, answers } = await underFault(knobs);
    for (const { path, stream, answer } of answers)
      expect(cliErrorProblem(path, answer), `${path} stream=${stream}`).toBeUndefined();
    await expectNothingLeft(cli, proxy);
  });

  it('the CLI exits 0 without printing anything: a clear error, no child left', async () => {
    const silent = join(bed.dir, 'silent-cli');
    // --version and `auth status` still answer (the health probe), but print mode exits at once with no output.
    await writeFile(
      silent,
      `#!/bin/sh\nfor a in "$@"; do case "$a" in -p|--print) exit 0;; esac; done\nexec '${bed.cli.path}' "$@"\n`,
    );
    await chmod(silent, 0o755);
    const { proxy, answers } = await underFault(silent);
    for (const { path, stream, answer } of answers) {
      expect(cliErrorProblem(path, answer), `${path} stream=${stream}`).toBeUndefined();
      expect(answer.text).toMatch(/without finishing/);
    }
    await expectNothingLeft(bed.cli, proxy);
  });

  it('garbage lines between the real ones are skipped: every route answers normally', async () => {
    const { proxy, cli, answers } = await underFault({ scenario: 'garbage', reply: 'alpha beta gamma' });
    for (const { path, stream, answer } of answers) {
      expect(answer.status, `${path} stream=${stream}: ${answer.text.slice(0, 200)}`).toBe(200);
      expect(answer.text).toContain('gamma');
      if (stream) expect(streamError(parseSseText(answer.text))).toBeUndefined();
    }
    await expectNothingLeft(cli, proxy);
  });

  it('a slow drip of tokens within the deadlines streams the whole answer', async () => {
    const { proxy, cli } = await bed.sibling({}, { reply: 'one two three four five', tokenDelayMs: 150 });
    for (const path of paths) {
      const answer = await post(proxy.url, path, { ...body, stream: true });
      expect(answer.status).toBe(200);
      expect(streamError(parseSseText(answer.text))).toBeUndefined();
      for (const w of ['one', 'three', 'five']) expect(answer.text).toContain(w);
    }
    await expectNothingLeft(cli, proxy);
  });

  it('a client that goes away mid-stream ends the CLI child', async () => {
    const { proxy, cli } = await bed.sibling(
      {},
      { reply: 'one two three four five six seven eight nine ten', tokenDelayMs: 400 },
    );
    for (const path of paths) {
      const ac = new AbortController();
      const res = await fetch(proxy.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, stream: true }),
        signal: ac.signal,
      });
      await res.body!.getReader().read();
      expect((await cli.alivePids()).length).toBe(1);
      ac.abort();
      expect(await eventually(async () => (await cli.alivePids()).length === 0, 6_000), path).toBe(true);
    }
    await expectNothingLeft(cli, proxy);
  });
});
