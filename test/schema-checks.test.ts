// A JSON schema with a typo is the client's 400, naming its own field and the fault, before anything starts
// (src/proxy/formats/check-schemas.ts, docs/http.md "Schemas checked first"): in tool mode no CLI process starts (it
// used to, exit at once, and answer a 502 blaming the server), in direct mode the provider is not called, and the
// ledger records the request as the client's error. Every format's structured-output field and a tool's schema.

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDirectBed } from './helpers/direct-bed.js';
import type { TestProxy } from './helpers/proxy.js';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';
import { startSimulator, type Simulator } from './simulator/index.js';
import type { UsageRecord, UsageSink } from '../src/proxy/usage/types.js';

const model = 'assistant-sonnet-4-20250514';
const typo = { type: 'object', properties: { city: { type: 'strnig' } } };
const user = [{ role: 'user', content: 'Weather?' }];
const rows: UsageRecord[] = [];
const usage: UsageSink = { record: (row) => rows.push(row), upstreamHeaders: () => {}, cliRateLimit: () => {} };

/** Each format's request with a bad schema, the field the 400 must name, and how its error shape carries it. */
const cases = [
  {
    name: 'native output_config.format',
    path: '/v1/messages',
    body: { model, max_tokens: 100, messages: user, output_config: { format: { type: 'json_schema', schema: typo } } },
    field: 'output_config.format.schema',
  },
  {
    name: 'compatible response_format',
    path: '/compat/v1/chat/completions',
    body: { model, messages: user, response_format: { type: 'json_schema', json_schema: { name: 'w', schema: typo } } },
    field: 'response_format.json_schema.schema',
  },
  {
    name: "a compatible tool's parameters",
    path: '/compat/v1/chat/completions',
    body: {
      model,
      messages: user,
      tools: [
        { type: 'function', function: { name: 'ok', parameters: { type: 'object' } } },
        { type: 'function', function: { name: 'bad', parameters: { type: 'object', required: 'city' } } },
      ],
    },
    field: 'tools.1.function.parameters',
  },
  {
    name: 'Responses text.format',
    path: '/v1/responses',
    body: { model, input: 'Weather?', text: { format: { type: 'json_schema', name: 'w', schema: typo } } },
    field: 'text.format.schema',
  },
];

/** The 400's message, whatever the shape (native and compatible: error.message; Ollama: error). */
async function refusal(res: Response): Promise<string> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: string | { message: string } };
  return typeof body.error === 'string' ? body.error : body.error.message;
}

describe('tool mode: a bad schema starts no CLI', () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({ reply: 'Paris' }, {}, {}, usage);
  });
  afterAll(async () => {
    await bed?.close();
  });
  beforeEach(() => {
    rows.length = 0;
  });

  it.each(cases)(
    "$name: a 400 naming $field, no process, the client's error in the ledger",
    async ({ path, body, field }) => {
      const before = (await bed.cli.records()).length;
      const message = await refusal(await postJson(`${bed.url}${path}`, body));
      expect(message).toContain(`${field} is not a valid JSON Schema`);
      expect((await bed.cli.records()).length).toBe(before);
      await expect.poll(() => rows.length).toBe(1);
      expect(rows[0]).toMatchObject({ status: 400, outcome: 'rejected', errorType: 'invalid_request_error' });
    },
  );

  it('says where inside the schema the fault is', async () => {
    const message = await refusal(await postJson(`${bed.url}${cases[0].path}`, cases[0].body));
    expect(message).toMatch(/properties\.city\.type must be equal to one of the allowed values \("array", /);
  });

  it('lets a valid schema through, draft-07 or 2020-12, unknown keywords included', async () => {
    for (const $schema of [undefined, 'https://json-schema.org/draft/2020-12/schema']) {
      const schema = {
        ...($schema ? { $schema } : {}),
        type: 'object',
        properties: { city: { type: 'string', 'x-note': 1 } },
      };
      const res = await postJson(`${bed.url}/v1/messages`, {
        model,
        max_tokens: 2000,
        messages: user,
        output_config: { format: { type: 'json_schema', schema } },
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
  });
});

describe('direct mode: a bad schema never reaches the provider', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let bed: Awaited<ReturnType<typeof startDirectBed>>;
  beforeAll(async () => {
    sim = await startSimulator();
    bed = await startDirectBed(sim, 'schema-checks', { ollamaPort: 0, ollamaMode: 'direct' }, { usage });
    proxy = bed.proxy;
  });
  afterAll(async () => {
    await bed?.close();
    await sim?.close();
  });
  beforeEach(() => {
    sim.reset();
    rows.length = 0;
  });

  it.each(cases.filter((c) => c.path !== '/v1/messages'))(
    '$name: a 400 naming $field',
    async ({ path, body, field }) => {
      const direct = path.replace(/^\/compat\/v1|^\/v1/, '/api/v1');
      const message = await refusal(await postJson(`${proxy.url}${direct}`, body));
      expect(message).toContain(`${field} is not a valid JSON Schema`);
      expect(sim.requests('/v1/messages')).toHaveLength(0);
    },
  );

  it("the Ollama listener's format, in Ollama's own error shape", async () => {
    const status = proxy.proxy.ollama();
    if (status.state !== 'listening') throw new Error(status.state);
    const message = await refusal(
      await postJson(`${status.url}/api/chat`, { model, messages: user, stream: false, format: typo }),
    );
    expect(message).toContain('format is not a valid JSON Schema');
    expect(sim.requests('/v1/messages')).toHaveLength(0);
  });
});
