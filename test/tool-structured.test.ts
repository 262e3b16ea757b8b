// Tool mode's JSON schemas and effort through the proxy with the fake CLI, which runs a schema as the real CLI
// does (test/fixtures/fake-cli-structured.mjs, from the recordings): docs/tool-mode.md "Structured output",
// "Thinking". The schema and the effort reach the CLI as flags, the validated object is the answer's text whole or
// streamed, the CLI's own tool call never shows, and both are part of the spawn key (live conversations, warm pool).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCliRecord } from './fixtures/fake-cli.js';
import { postJson, readSse, startToolBed, waitFor, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number' }, sunny: { type: 'boolean' } },
  required: ['city', 'temp'],
};
const reply = 'Paris';
const object = { city: reply, temp: 1, sunny: true };
const format = (s: object = schema) => ({ type: 'json_schema', schema: s });

let bed: ToolBed;
beforeAll(async () => {
  bed = await startToolBed({ reply });
});
afterAll(async () => {
  await bed?.close();
});

async function chats(b: ToolBed): Promise<FakeCliRecord[]> {
  return (await b.cli.records()).filter((r) => r.argv.includes('-p') && r.prompt !== null);
}
const flagOf = (rec: FakeCliRecord, flag: string) => {
  const at = rec.argv.indexOf(flag);
  return at < 0 ? undefined : rec.argv[at + 1];
};
const ask = (b: ToolBed, extra: Record<string, unknown>, path = '/v1/messages') =>
  postJson(`${b.url}${path}`, { model, max_tokens: 2000, messages: [{ role: 'user', content: 'Weather?' }], ...extra });

describe('a JSON schema in tool mode', () => {
  it('answers a native request with the validated object as its one text block, stop reason end_turn', async () => {
    const res = await ask(bed, { output_config: { format: format() } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { content: Array<{ type: string; text: string }>; stop_reason: string };
    expect(body.content).toHaveLength(1);
    expect(body.content[0].type).toBe('text');
    expect(JSON.parse(body.content[0].text)).toEqual(object);
    expect(body.stop_reason).toBe('end_turn');
    expect((await chats(bed)).at(-1)!.jsonSchema).toBe(JSON.stringify(schema));
  });

  it('streams it as text deltas, with no tool call and no input_json delta', async () => {
    const res = await ask(bed, { stream: true, output_config: { format: format() } });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const data = events.map((e) => e.data as { type: string; delta?: { text?: string; stop_reason?: string } });
    const text = data
      .filter((d) => d.type === 'content_block_delta')
      .map((d) => d.delta!.text)
      .join('');
    expect(JSON.parse(text)).toEqual(object);
    expect(JSON.stringify(data)).not.toMatch(/tool_use|input_json_delta|StructuredOutput/);
    expect(data.find((d) => d.type === 'message_delta')!.delta!.stop_reason).toBe('end_turn');
  });

  it('answers the native chat route the same way', async () => {
    const res = await ask(bed, { output_config: { format: format() } }, '/v1/chat/completions');
    expect(res.status).toBe(200);
    const body = JSON.stringify(await res.json());
    expect(body).toContain(JSON.stringify(JSON.stringify(object)).slice(1, -1));
    expect(body).not.toContain('StructuredOutput');
  });

  it('is a 502 in the native shape, whole or streamed, when the model never gave an object the CLI accepted', async () => {
    // `required` names a property the fake's object lacks: the CLI's validation refuses every attempt.
    const unmet = format({ type: 'object', properties: {}, required: ['city'] });
    const whole = await ask(bed, { output_config: { format: unmet } });
    expect(whole.status).toBe(502);
    const body = (await whole.json()) as { type: string; error: { message: string } };
    expect(body.type).toBe('error');
    expect(body.error.message).toMatch(/JSON schema/);
    const streamed = await ask(bed, { stream: true, output_config: { format: unmet } });
    const events = await readSse(streamed);
    expect(events.at(-1)!.event).toBe('error');
    expect(JSON.stringify(events)).not.toContain(reply);
  });

  it('refuses, before any CLI starts, a schema after a prefill and malformed output settings, naming the field', async () => {
    const before = (await chats(bed)).length;
    const prefill = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 100,
      output_config: { format: format() },
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '{"city":' },
      ],
    });
    expect(prefill.status).toBe(400);
    expect(JSON.stringify(await prefill.json())).toMatch(/output_config\.format.*prefill/);
    // A compatible client is told its own field, response_format, not the native one it became.
    const compat = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: format().schema } },
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '{"city":' },
      ],
    });
    expect(compat.status).toBe(400);
    const body = (await compat.json()) as { error: { message: string; param: string } };
    expect(body.error.param).toBe('response_format');
    expect(body.error.message).toMatch(/^Invalid request: response_format: .*prefill/);
    for (const output_config of [
      { effort: 'extreme' },
      { format: { type: 'text' } },
      { format: { type: 'json_schema' } },
    ]) {
      const res = await ask(bed, { output_config });
      expect(res.status).toBe(400);
      expect(JSON.stringify(await res.json())).toContain('output_config');
    }
    expect((await chats(bed)).length).toBe(before);
  });
});

describe("a JSON schema beside the client's own tools", () => {
  it('hands out the tool call first, then answers with the object once the results come back', async () => {
    const b = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } });
    try {
      const weather = {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      };
      const citySchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
      const messages: object[] = [{ role: 'user', content: 'Weather in Paris?' }];
      const ask2 = (msgs: object[]) =>
        postJson(`${b.url}/v1/messages`, {
          model,
          max_tokens: 2000,
          tools: [weather],
          output_config: { format: format(citySchema) },
          messages: msgs,
        });
      const first = (await (await ask2(messages)).json()) as {
        content: Array<{ type: string; id: string; name: string }>;
        stop_reason: string;
      };
      expect(first.stop_reason).toBe('tool_use');
      expect(first.content.map((c) => [c.type, c.name])).toEqual([['tool_use', 'get_weather']]);
      const second = await ask2([
        ...messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: first.content[0].id, content: 'sunny' }] },
      ]);
      expect(second.status).toBe(200);
      const body = (await second.json()) as { content: Array<{ type: string; text: string }>; stop_reason: string };
      expect(body.stop_reason).toBe('end_turn');
      expect(body.content.map((c) => c.type)).toEqual(['text']);
      expect(JSON.parse(body.content[0].text)).toEqual({ city: 'The tool said: sunny' });
      // One process for the whole loop, started with the schema.
      const records = await chats(b);
      expect(records).toHaveLength(1);
      expect(records[0].jsonSchema).toBe(JSON.stringify(citySchema));
    } finally {
      await b.close();
    }
  });
});

describe('effort and thinking in tool mode', () => {
  it("gives the CLI output_config.effort as asked: a client's low arrives as low", async () => {
    expect((await ask(bed, { output_config: { effort: 'low' } })).status).toBe(200);
    const rec = (await chats(bed)).at(-1)!;
    expect(flagOf(rec, '--effort')).toBe('low');
    expect(rec.env.MAX_THINKING_TOKENS).toBe('0');
  });

  it('takes adaptive thinking (no 400): any budget keeps the CLI adaptive, and the effort goes with it', async () => {
    const res = await ask(bed, { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } });
    expect(res.status).toBe(200);
    const rec = (await chats(bed)).at(-1)!;
    expect(rec.env.MAX_THINKING_TOKENS).toBe('1999');
    expect(flagOf(rec, '--effort')).toBe('high');
    expect((await ask(bed, { thinking: { type: 'adaptive' } })).status).toBe(200);
    expect(flagOf((await chats(bed)).at(-1)!, '--effort')).toBeUndefined();
  });

  it("gives a budget as the budget and the effort level it reaches, and the compatible reasoning_effort's level arrives as it is", async () => {
    await ask(bed, { thinking: { type: 'enabled', budget_tokens: 1500 } });
    let rec = (await chats(bed)).at(-1)!;
    expect([rec.env.MAX_THINKING_TOKENS, flagOf(rec, '--effort')]).toEqual(['1500', 'low']);
    const compat = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      max_tokens: 8000,
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(compat.status).toBe(200);
    rec = (await chats(bed)).at(-1)!;
    // The format states reasoning_effort as adaptive thinking with that effort (docs/models.md): the CLI stays
    // adaptive (max_tokens - 1) and the level goes as --effort, unchanged.
    expect([rec.env.MAX_THINKING_TOKENS, flagOf(rec, '--effort')]).toEqual(['7999', 'low']);
  });
});

describe('schema and effort in the spawn key', () => {
  it('continues a live conversation only on a process started with the same schema and effort', async () => {
    const b = await startToolBed({ reply }, { cliLiveMax: 4 });
    try {
      const first = [{ role: 'user', content: 'Weather?' }];
      const turn = async (messages: object[], output_config: object) => {
        const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 2000, messages, output_config });
        expect(res.status).toBe(200);
        return ((await res.json()) as { content: Array<{ text: string }> }).content[0].text;
      };
      const answer = await turn(first, { format: format(), effort: 'low' });
      const next = (text: string) => [
        ...first,
        { role: 'assistant', content: answer },
        { role: 'user', content: text },
      ];
      await waitFor(async () => (await chats(b)).length === 1);
      expect(await turn(next('And tomorrow?'), { format: format(), effort: 'low' })).toBe(answer);
      // Another effort, then another schema: a process of its own each, with the whole conversation.
      await turn(next('And the day after?'), { format: format(), effort: 'high' });
      await turn(next('And next week?'), { format: format({ ...schema, required: ['city'] }), effort: 'low' });
      const records = await chats(b);
      expect(records.map((r) => r.turns.length)).toEqual([2, 1, 1]);
      expect(records.map((r) => flagOf(r, '--effort'))).toEqual(['low', 'high', 'low']);
      expect(records[2].turns[0]).toBe('And next week?');
    } finally {
      await b.close();
    }
  });

  it('hands a warm process only to a request with the same schema', async () => {
    const b = await startToolBed({ reply }, { cliPoolSize: 1 });
    try {
      const pool = async () =>
        (
          (await (await fetch(`${b.url}/health/detailed`)).json()) as {
            components: { cli_pool: { warm: number; hits: number } };
          }
        ).components.cli_pool;
      expect((await ask(b, { output_config: { format: format() } })).status).toBe(200);
      expect(await waitFor(async () => (await pool()).warm === 1, 10_000)).toBe(true);
      const other = await ask(b, { output_config: { format: format({ ...schema, required: ['city'] }) } });
      expect(other.status).toBe(200);
      expect((await pool()).hits).toBe(0);
      expect(await waitFor(async () => (await pool()).warm === 1, 10_000)).toBe(true);
      const same = await ask(b, { output_config: { format: format({ ...schema, required: ['city'] }) } });
      expect(same.status).toBe(200);
      // The pool's own count says the warm process was handed over; every chat run with that schema had it as a flag.
      expect((await pool()).hits).toBe(1);
      const withSchemaB = (await chats(b)).filter(
        (r) => r.jsonSchema === JSON.stringify({ ...schema, required: ['city'] }),
      );
      expect(withSchemaB).toHaveLength(2);
    } finally {
      await b.close();
    }
  });
});
