// Documents in every format, in both modes (docs/interface.md "Documents"), sent as users send a PDF: the openai SDK
// (a chat completions `file` part, a Responses `input_file`), the AI SDK (its openai provider on both APIs, its
// anthropic provider) and the native SDK (a `document` block). In tool mode the document reaches the CLI as a native
// document block on its stdin (which the real CLI sends on unchanged: test/fixtures/cli-recordings/document.upstream.json);
// in direct mode it reaches the provider simulator. What the provider cannot read is a 400 before any call: a model
// without PDF input, a type that is not PDF or plain text, a file id; the simulator refuses the same when asked.

import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { model, startClientBed, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed();
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => bed.sim.reset());

const pdfBytes = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n');
const pdf = pdfBytes.toString('base64');
const dataUrl = `data:application/pdf;base64,${pdf}`;
type Doc = {
  type: string;
  source: { type: string; media_type?: string; data?: string };
  title?: string;
  citations?: unknown;
};

/** The document blocks the fake CLI read on its stdin since `before` records. */
async function documentsTheCliGot(before: number): Promise<Doc[]> {
  const records = (await bed.cli.records()).slice(before);
  return records.flatMap((r) =>
    (r.stdin ?? '')
      .split('\n')
      .filter(Boolean)
      .flatMap((line) => {
        const content = (JSON.parse(line) as { message?: { content?: unknown } }).message?.content;
        return Array.isArray(content) ? (content as Doc[]).filter((b) => b.type === 'document') : [];
      }),
  );
}

/** The document blocks the provider simulator received. */
const documentsTheProviderGot = (): Doc[] =>
  bed.sim
    .requests('/v1/messages')
    .flatMap((r) => (r.json as { messages: Array<{ content: unknown }> }).messages)
    .flatMap((m) => (Array.isArray(m.content) ? (m.content as Doc[]).filter((b) => b.type === 'document') : []));

const thePdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf } };

/** Each client's way of sending the PDF, by the path it is given (tool mode's, direct mode's). */
const clients: Array<{ name: string; paths: [string, string]; send: (base: string) => Promise<string> }> = [
  {
    name: 'openai SDK, chat completions file part',
    paths: ['/compat/v1', '/api/v1'],
    send: async (base) => {
      const answer = await new OpenAI({ apiKey: 'dummy', baseURL: base, maxRetries: 0 }).chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'file', file: { filename: 'report.pdf', file_data: dataUrl } },
              { type: 'text', text: 'Summarise this.' },
            ],
          },
        ],
      });
      return answer.choices[0].message.content ?? '';
    },
  },
  {
    name: 'openai SDK, Responses input_file',
    paths: ['/v1', '/api/v1'],
    send: async (base) => {
      const answer = await new OpenAI({ apiKey: 'dummy', baseURL: base, maxRetries: 0 }).responses.create({
        model,
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_file', filename: 'report.pdf', file_data: dataUrl },
              { type: 'input_text', text: 'Summarise this.' },
            ],
          },
        ],
      });
      return answer.output_text;
    },
  },
  ...(['chat', 'responses'] as const).map((api) => ({
    name: `AI SDK, @ai-sdk/openai ${api}`,
    paths: [api === 'chat' ? '/compat/v1' : '/v1', '/api/v1'] as [string, string],
    send: (base: string) => viaAiSdk(createOpenAI({ apiKey: 'dummy', baseURL: base })[api](model)),
  })),
  {
    name: 'AI SDK, @ai-sdk/anthropic',
    paths: ['/v1', '/api/v1'],
    send: (base) => viaAiSdk(createAnthropic({ apiKey: 'dummy', baseURL: base })(model)),
  },
  {
    name: 'native SDK, document block',
    paths: ['', '/api'],
    send: async (base) => {
      const answer = await new Anthropic({ apiKey: 'dummy', baseURL: base, maxRetries: 0 }).messages.create({
        model,
        max_tokens: 200,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'document',
                source: { type: 'base64', media_type: 'application/pdf', data: pdf },
                title: 'report.pdf',
              },
              { type: 'text', text: 'Summarise this.' },
            ],
          },
        ],
      });
      return answer.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    },
  },
];

async function viaAiSdk(languageModel: LanguageModel): Promise<string> {
  const result = await generateText({
    model: languageModel,
    maxRetries: 0,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'file', data: pdfBytes, mediaType: 'application/pdf', filename: 'report.pdf' },
          { type: 'text', text: 'Summarise this.' },
        ],
      },
    ],
  });
  return result.text;
}

describe.each(clients)('$name sends a PDF', ({ paths, send }) => {
  it('tool mode: the CLI gets it as a document block', async () => {
    const before = (await bed.cli.records()).length;
    expect(await send(`${bed.url}${paths[0]}`)).not.toBe('');
    expect(await documentsTheCliGot(before)).toEqual([expect.objectContaining(thePdf)]);
  });

  it('direct mode: the provider gets it as a document block', async () => {
    expect(await send(`${bed.url}${paths[1]}`)).not.toBe('');
    expect(documentsTheProviderGot()).toEqual([expect.objectContaining(thePdf)]);
  });
});

describe('what the provider cannot read is a 400 before any call', () => {
  const chat = (base: string, body: Record<string, unknown>) =>
    fetch(`${bed.url}${base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, ...body }),
    });
  const withPart = (part: unknown, m = model) => ({
    model: m,
    messages: [{ role: 'user', content: [part, { type: 'text', text: 'Summarise this.' }] }],
  });

  it.each([
    [
      'a PDF to a model without PDF input',
      withPart({ type: 'file', file: { file_data: dataUrl } }, 'assistant-3-5-sonnet-20240620'),
      'does not read PDFs',
    ],
    [
      'a Word file',
      withPart({ type: 'file', file: { file_data: 'data:application/msword;base64,AAAA' } }),
      'the provider reads only PDF',
    ],
    ['an uploaded file by id', withPart({ type: 'file', file: { file_id: 'file-abc123' } }), 'no files API'],
    [
      'a text data URL with broken percent-encoding',
      withPart({ type: 'file', file: { file_data: 'data:text/plain,%E0%A4%A' } }),
      'percent-encoding is broken',
    ],
  ])('%s, in both modes', async (_name, body, says) => {
    const before = (await bed.cli.records()).length;
    for (const base of ['/compat/v1', '/api/v1']) {
      const res = await chat(base, body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain(says);
    }
    expect((await bed.cli.records()).length).toBe(before);
    expect(bed.sim.requests('/v1/messages')).toHaveLength(0);
  });

  it('the simulator refuses what the provider refuses: a PDF sent as it is to a model that reads none', async () => {
    // /api/v1/messages forwards the client's bytes; the provider's own 400 comes back.
    const res = await fetch(`${bed.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'assistant-3-5-sonnet-20240620',
        max_tokens: 100,
        messages: [{ role: 'user', content: [thePdf, { type: 'text', text: 'Summarise this.' }] }],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('PDF input is not supported');
  });

  it('a plain-text file becomes a text document', async () => {
    const text = `data:text/plain;base64,${Buffer.from('Plain words.').toString('base64')}`;
    const res = await chat('/api/v1', withPart({ type: 'file', file: { filename: 'notes.txt', file_data: text } }));
    expect(res.status).toBe(200);
    expect(documentsTheProviderGot()).toEqual([
      {
        type: 'document',
        source: { type: 'text', media_type: 'text/plain', data: 'Plain words.' },
        title: 'notes.txt',
      },
    ]);
  });
});

describe('citations reach a format with a place for them', () => {
  const notes = `data:text/plain;base64,${Buffer.from('The launch moved to March.').toString('base64')}`;
  const input: OpenAI.Responses.ResponseInput = [
    {
      role: 'user',
      content: [
        { type: 'input_file', filename: 'notes.txt', file_data: notes },
        { type: 'input_text', text: 'When is the launch?' },
      ],
    },
  ];
  const openai = () => new OpenAI({ apiKey: 'dummy', baseURL: `${bed.url}/api/v1`, maxRetries: 0 });
  const cited = {
    type: 'file_citation',
    file_id: 'document_0',
    filename: 'notes.txt',
    index: 0,
    quote: 'The launch moved to March.',
  };

  it('Responses: the provider is asked to cite, and its citations are annotations, whole and streamed', async () => {
    const whole = await openai().responses.create({ model, input });
    expect(documentsTheProviderGot()[0]).toMatchObject({ citations: { enabled: true } });
    const part = (whole.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0];
    expect(part).toMatchObject({ type: 'output_text', annotations: [cited] });

    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await openai().responses.create({ model, input, stream: true })) events.push(event);
    const added = events.filter((e) => e.type === 'response.output_text.annotation.added');
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ annotation_index: 0, annotation: cited });
    const done = events.find((e) => e.type === 'response.completed') as OpenAI.Responses.ResponseCompletedEvent;
    expect((done.response.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({
      annotations: [cited],
    });
  });

  it('Responses with a JSON format: no citations asked, which the provider does not combine with one', async () => {
    await openai().responses.create({
      model,
      input,
      text: { format: { type: 'json_schema', name: 'a', schema: { type: 'object', properties: {} } } },
    });
    expect(documentsTheProviderGot()[0].citations).toBeUndefined();
  });
});
