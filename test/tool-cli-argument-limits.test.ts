// The model id and the system prompt go to the assistant CLI as command-line arguments, which
// cannot hold a NUL character; a request with one made the spawn throw and the client got a 500 from our own bug.
// A model id longer than an argument may be (E2BIG) was a 503 telling the user to install the CLI. Both are
// requests the CLI cannot take, so they are a 400 naming the field (docs/interface.md "Errors").

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

let bed: ToolBed;

beforeAll(async () => {
  bed = await startToolBed();
});

afterAll(async () => {
  await bed.close();
});

const model = 'assistant-sonnet-4-20250514';
const messages = [{ role: 'user', content: 'hi' }];

describe('a NUL character in what becomes a CLI argument', () => {
  it('is a 400 on the model id', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, { model: 'assistant\u0000x', max_tokens: 5, messages });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', details: { field: 'model' } },
    });
  });

  it('is a 400 on a native system prompt', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, { model, max_tokens: 5, system: 'be\u0000brief', messages });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { details: { field: 'system' } } });
  });

  it('is a 400 on a compatible system message, in the compatible shape', async () => {
    const res = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      messages: [{ role: 'system', content: 'a\u0000b' }, ...messages],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_request_error', param: 'system' } });
  });

  it('is a 400 on a model id too long for a command-line argument, not a 503 saying to install the CLI', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, { model: 'm'.repeat(200_000), max_tokens: 5, messages });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { details: { field: 'model' } } });
  });

  it('leaves the message text alone (it goes on stdin)', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 5,
      messages: [{ role: 'user', content: 'h\u0000i' }],
    });
    expect(res.status).toBe(200);
  });
});
