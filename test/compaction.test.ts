// Compaction for Responses clients (docs/compaction.md), as users run it, in both modes: tool mode through the real
// assistant CLI, direct mode to the provider simulator, whose model writes a summary when asked for one and keeps the
// provider's rules. The openai SDK's responses.compact() and a follow-up that still knows the earlier conversation; a
// compaction_trigger streamed over HTTP, chained by id; a forged item and one sealed elsewhere refused before any
// provider call; items sealed before a restart still open; a stored compaction stays sealed; the ledger row says it
// was a compaction. Codex itself is run by the agents suite (test/agents/codex-compaction.test.ts).

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compactionSeal } from '../src/proxy/responses/compaction/seal.js';
import type { Settings } from '../src/proxy/config.js';
import type { UsageRecord } from '../src/proxy/usage/types.js';
import { realCliEnv } from './helpers/real-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const realCli =
  process.env.REAL_ASSISTANT_CLI || join(root, '.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const haveRealCli = existsSync(realCli);
const model = 'assistant-sonnet-4-20250514';
const bases = { tool: '/compat/v1', direct: '/api/v1' } as const;

let sim: Simulator;
let proxy: TestProxy;
let home: string;
const rows: UsageRecord[] = [];

async function start(extra: Settings = {}): Promise<TestProxy> {
  return startProxy(
    {
      ...extra,
      modes: haveRealCli ? ['tool', 'direct'] : ['direct'],
      apiBaseUrl: sim.url,
      credentialsPath: join(home, '.claude', '.credentials.json'),
      oauthTokenUrl: sim.cliTokenUrl,
      rateLimitPerMinute: 10_000,
      dataDir: join(home, 'proxy-data'),
      ...(haveRealCli ? { cliPath: realCli, cliWorkDir: join(home, 'cli-work'), cliFirstTokenTimeoutMs: 60_000 } : {}),
    },
    {
      deps: { childEnv: realCliEnv(home, sim.url) },
      usage: { record: (row) => rows.push(row), upstreamHeaders: () => {}, cliRateLimit: () => {} },
    },
  );
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'compaction-'));
  await writeCliCredentials(join(home, '.claude'), {
    accessToken: 'sk-ant-oat01-compaction-suite',
    refreshToken: 'sk-ant-ort01-compaction-suite',
    expiresAt: Date.now() + 3_600_000,
  });
  sim = await startSimulator();
  proxy = await start();
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(home, { recursive: true, force: true });
});

beforeEach(() => {
  sim.reset();
  sim.knobs.answerTools = false;
  rows.length = 0;
});

/** The text of every request the simulated provider got since the last reset. */
const upstreamTexts = () =>
  sim.requests('/v1/messages').map((r) => (Buffer.isBuffer(r.body) ? r.body.toString('utf8') : JSON.stringify(r.body)));

/** What only the assistant's whole reply holds, past what the simulator's summary quotes of it (its first 300
 * characters): seen upstream, it shows that the earlier conversation itself was sent, not its summary. */
const tailOf = (code: string) => `TAIL-${code}`;

/** A short conversation whose one fact (a code word) only the assistant's reply holds. */
function conversation(code: string): OpenAI.Responses.ResponseInput {
  const filler = Array.from({ length: 40 }, (_, i) => `detail${i}`).join(' ');
  return [
    { role: 'user', content: 'Pick a code word for the release and tell me.' },
    { role: 'assistant', content: `The code word is ${code}. ${filler} ${tailOf(code)}` },
    { role: 'user', content: 'Good. Keep it in mind.' },
  ];
}

for (const mode of ['direct', 'tool'] as const) {
  describe.skipIf(mode === 'tool' && !haveRealCli)(`${mode} mode`, () => {
    const client = () => new OpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}${bases[mode]}`, maxRetries: 0 });
    /** The question after a compaction, the compacted items before it. */
    const askAfter = (compacted: OpenAI.Responses.CompactedResponse) =>
      client().responses.create({
        model,
        input: [
          ...(compacted.output as OpenAI.Responses.ResponseInputItem[]),
          { role: 'user', content: 'What was it?' },
        ],
      });

    it('responses.compact() gives the user messages and one sealed item; a follow-up still knows the conversation', async () => {
      const code = `CODE-${randomBytes(4).toString('hex')}`;
      const compacted = await client().responses.compact({ model, input: conversation(code) });
      expect(compacted.object).toBe('response.compaction');
      const types = compacted.output.map((o) => o.type);
      expect(types).toEqual(['message', 'message', 'compaction']);
      const item = compacted.output[2] as OpenAI.Responses.ResponseCompactionItem;
      expect(item.encrypted_content).toMatch(/^apc1\./);
      expect(item.encrypted_content).not.toContain(code);
      expect(compacted.usage.output_tokens).toBeGreaterThan(0);
      const summaryRow = rows.find((r) => r.route.endsWith('/responses/compact'));
      expect(summaryRow).toMatchObject({ purpose: 'compaction', outcome: 'ok', mode });

      sim.reset();
      const follow = await askAfter(compacted);
      expect(follow.status).toBe('completed');
      // The code word reached the model only through the summary: the assistant's reply itself is gone.
      const sent = upstreamTexts().join('\n');
      expect(sent).toContain(code);
      expect(sent).not.toContain(tailOf(code));
      expect(rows.at(-1)).toMatchObject({ purpose: null, outcome: 'ok' });
    }, 120_000);

    it('a streamed compaction_trigger answers exactly one compaction item, and a chained follow-up continues from it', async () => {
      const code = `CODE-${randomBytes(4).toString('hex')}`;
      const stream = await client().responses.create({
        model,
        stream: true,
        input: [...conversation(code), { type: 'compaction_trigger' } as unknown as OpenAI.Responses.ResponseInputItem],
      });
      const done: string[] = [];
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        if (event.type === 'response.output_item.done') done.push(event.item.type);
        if (event.type === 'response.output_text.delta') throw new Error('the summary must not be streamed as text');
        if (event.type === 'response.completed') completed = event.response;
      }
      expect(done).toEqual(['compaction']);
      expect(completed?.output.map((o) => o.type)).toEqual(['compaction']);
      expect(rows.at(-1)).toMatchObject({ purpose: 'compaction', outcome: 'ok' });

      // Stored sealed: the kept response holds the item as the client got it, never the summary in the clear (the
      // simulator's summaries begin with these words).
      const stored = join(home, 'proxy-data', 'responses');
      const files = (await readdir(stored, { recursive: true })).filter((f) => f.endsWith('.json'));
      const texts = await Promise.all(files.map((f) => readFile(join(stored, f), 'utf8')));
      const kept = texts.find((t) => t.includes(completed!.id));
      expect(kept).toContain('"type":"compaction"');
      for (const t of texts) expect(t).not.toContain('Summary of the conversation so far');

      sim.reset();
      const follow = await client().responses.create({
        model,
        previous_response_id: completed!.id,
        input: [{ role: 'user', content: 'What was it?' }],
      });
      expect(follow.status).toBe('completed');
      const sent = upstreamTexts().join('\n');
      expect(sent).toContain(code);
      expect(sent).not.toContain(tailOf(code));
    }, 120_000);

    it('a long conversation, compacted, sends a fraction of its tokens on the next turn', async () => {
      const turns: OpenAI.Responses.ResponseInput = Array.from({ length: 30 }, (_, i) => [
        {
          role: 'user' as const,
          content: `Step ${i}: ` + Array.from({ length: 80 }, (_, k) => `w${i}_${k}`).join(' '),
        },
        {
          role: 'assistant' as const,
          content: `Done step ${i}. ` + Array.from({ length: 120 }, (_, k) => `r${i}_${k}`).join(' '),
        },
      ]).flat();
      const next = { role: 'user' as const, content: 'Go on with the next step.' };
      const last = { role: 'user' as const, content: 'And the one after.' };
      // The session's last turn, then its compaction, then the turn after: compacted, and not.
      const answer = await client().responses.create({ model, input: [...turns, next] });
      const compacted = await client().responses.compact({ model, input: [...turns, next] });
      const reply = { role: 'assistant' as const, content: answer.output_text };
      const whole = await client().responses.create({ model, input: [...turns, next, reply, last] });
      const after = await client().responses.create({
        model,
        input: [...(compacted.output as OpenAI.Responses.ResponseInputItem[]), last],
      });
      // The simulator bills a word a token; the compacted turn keeps the user's words and the summary only.
      const ratio = after.usage!.input_tokens / whole.usage!.input_tokens;
      expect(ratio).toBeLessThan(0.75);
      const cached = compacted.usage.input_tokens_details.cached_tokens / compacted.usage.input_tokens;
      // Direct mode's summary request shares the last turn's prefix, tools and tool choice included: the provider
      // reads it from its cache (docs/compaction.md "The summary").
      if (mode === 'direct') expect(cached).toBeGreaterThan(0.9);
      console.log(
        `${mode} mode: the next turn sent ${after.usage!.input_tokens} input tokens compacted, ${whole.usage!.input_tokens} without (${ratio.toFixed(2)}x); the compaction itself ${compacted.usage.input_tokens} in (${(cached * 100).toFixed(0)} % read from the cache), ${compacted.usage.output_tokens} out`,
      );
    }, 120_000);

    it('names context_management as not honoured, and refuses one of the wrong shape', async () => {
      const post = (context_management: unknown) =>
        fetch(`${proxy.url}${bases[mode]}/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model, input: 'Hi', context_management }),
        });
      const ok = await post([{ type: 'compaction', compact_threshold: 100_000 }]);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-proxy-ignored-params')).toContain('context_management');
      const bad = await post([{ type: 'summary' }]);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('context_management.0.type');
    }, 60_000);

    it('refuses a forged compaction item, and one sealed with another key, before any provider call', async () => {
      const other = compactionSeal(randomBytes(32)).seal({ summary: 'made elsewhere', model, created: 0 });
      for (const encrypted_content of [
        'apc1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
        other,
        'not sealed at all',
      ]) {
        const res = await fetch(`${proxy.url}${bases[mode]}/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model,
            input: [
              { type: 'compaction', encrypted_content },
              { role: 'user', content: 'Go on.' },
            ],
          }),
        });
        expect(res.status).toBe(400);
        const body = (await res.json()) as { error: { param: string; message: string; type: string } };
        expect(body.error).toMatchObject({ type: 'invalid_request_error', param: 'input.0.encrypted_content' });
        expect(body.error.message).toMatch(/start a new session/i);
      }
      expect(sim.requests('/v1/messages')).toHaveLength(0);
    });

    it('an item sealed before a restart still opens after it', async () => {
      const code = `CODE-${randomBytes(4).toString('hex')}`;
      const compacted = await client().responses.compact({ model, input: conversation(code) });
      await proxy.close();
      proxy = await start();
      sim.reset();
      const follow = await askAfter(compacted);
      expect(follow.status).toBe('completed');
      expect(upstreamTexts().join('\n')).toContain(code);
    }, 120_000);
  });
}

describe.skipIf(!haveRealCli)('tool mode’s live conversations', () => {
  it('a compaction ends the process waiting for the tool results it replaced, and keeps none for its summary', async () => {
    const live = await start({ cliLiveMax: 4, port: 0 });
    try {
      const client = new OpenAI({ apiKey: 'dummy', baseURL: `${live.url}/compat/v1`, maxRetries: 0 });
      sim.knobs.answerTools = true;
      const tools: OpenAI.Responses.FunctionTool[] = [
        { type: 'function', name: 'read_file', parameters: { type: 'object', properties: {} }, strict: false },
      ];
      const first = await client.responses.create({ model, tools, input: 'Read the notes.' });
      const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toBeDefined();
      expect(live.proxy.cliLive().waitingForTools).toBe(1);
      const compacted = await client.responses.create({
        model,
        tools,
        previous_response_id: first.id,
        input: [
          { type: 'function_call_output', call_id: call.call_id, output: 'The notes say hello.' },
          { type: 'compaction_trigger' } as unknown as OpenAI.Responses.ResponseInputItem,
        ],
      });
      expect(compacted.output.map((o) => o.type)).toEqual(['compaction']);
      const after = live.proxy.cliLive();
      expect(after.waitingForTools + after.idle + after.busy).toBe(0);
    } finally {
      await live.close();
    }
  }, 120_000);
});

describe('what Codex sent, recorded (test/fixtures/codex-compaction/)', () => {
  type Sent = { model: string; input: Array<{ type?: string; encrypted_content?: string }> };
  const recorded = async () =>
    (
      JSON.parse(await readFile(join(root, 'test/fixtures/codex-compaction/direct-http.json'), 'utf8')) as {
        messages: Sent[];
      }
    ).messages.map((m) => ({ ...m, model }));

  it('its compaction_trigger request is answered with exactly one compaction item, streamed', async () => {
    sim.knobs.answerTools = true;
    const trigger = (await recorded()).find((m) => m.input.at(-1)?.type === 'compaction_trigger')!;
    const res = await fetch(`${proxy.url}/api/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...trigger, transport: undefined }),
    });
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; item?: { type: string } });
    expect(events.filter((e) => e.type === 'response.output_item.done').map((e) => e.item?.type)).toEqual([
      'compaction',
    ]);
    expect(events.at(-1)?.type).toBe('response.completed');
  });

  it('its next request, holding the recording run’s item, is refused here: another proxy sealed it', async () => {
    const next = (await recorded()).find((m) => m.input.some((i) => i.type === 'compaction'))!;
    const at = next.input.findIndex((i) => i.type === 'compaction');
    const res = await fetch(`${proxy.url}/api/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...next, transport: undefined }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(`input.${at}.encrypted_content`);
    expect(sim.requests('/v1/messages')).toHaveLength(0);
  });
});

it('keeps the compaction key owner-only in the data directory', async () => {
  const { mode } = await import('node:fs').then((fs) => fs.statSync(join(home, 'proxy-data', 'compaction-key')));
  if (process.platform !== 'win32') expect(mode & 0o777).toBe(0o600);
});
