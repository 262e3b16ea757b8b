// A client body (docs/interface.md "Response-API request", chat or response-API form) -> the response API's request.

import { describe, expect, it } from 'vitest';
import { ProxyError } from '../errors.js';
import { createProfile, defaultProfile } from '../profile.js';
import { respapiRequestToUpstream } from './respapi-request-to-upstream.js';

const ours = 'OUR PROMPT';
const build = (body: unknown) => respapiRequestToUpstream(body, defaultProfile, ours);
const thrown = (fn: () => unknown): ProxyError => {
  try {
    fn();
  } catch (err) {
    return err as ProxyError;
  }
  throw new Error('did not throw');
};

describe('respapiRequestToUpstream', () => {
  it('turns a chat-form body into instructions and input items', () => {
    const plan = build({
      model: 'rm-3.5-turbo',
      messages: [
        { role: 'system', content: 'Sys one.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        { role: 'developer', content: [{ type: 'text', text: 'Dev two.' }] },
        { role: 'assistant', content: 'Seen.' },
      ],
      temperature: 0.5,
      max_tokens: 10,
      stream: true,
    });
    expect(plan).toEqual({
      body: {
        model: 'gpt-5-codex-mini',
        instructions: 'OUR PROMPT\n\nSys one.\n\nDev two.',
        input: [
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'Look:' },
              { type: 'input_image', image_url: 'data:image/png;base64,AAAA' },
            ],
          },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Seen.' }] },
        ],
        store: false,
        stream: true,
      },
      ignored: ['temperature', 'max_tokens'],
      clientStream: true,
      model: 'rm-3.5-turbo',
      upstreamModel: 'gpt-5-codex-mini',
    });
  });

  it('forwards a response-API body, combining instructions and keeping the client store choice', () => {
    const plan = build({
      model: 'rm-4',
      input: 'hi',
      instructions: '  Theirs.  ',
      store: true,
      max_output_tokens: 5,
      stream: false,
      tools: [],
    });
    expect(plan.body).toEqual({
      model: 'gpt-5',
      input: 'hi',
      instructions: 'OUR PROMPT\n\nTheirs.',
      store: true,
      tools: [],
      stream: true,
    });
    expect(plan.ignored).toEqual(['max_output_tokens']);
    expect(plan.clientStream).toBe(false);
  });

  it('forwards parameters the upstream accepts when a profile says so, under their upstream names', () => {
    const profile = createProfile({ respapi: { unsupportedParams: [] } });
    const plan = respapiRequestToUpstream(
      { model: 'rm-4', messages: [{ role: 'user', content: 'x' }], temperature: 0.7, max_tokens: 9 },
      profile,
      ours,
    );
    expect(plan.body).toMatchObject({ temperature: 0.7, max_output_tokens: 9 });
    expect(plan.body).not.toHaveProperty('max_tokens');
    expect(plan.ignored).toEqual([]);
  });

  it('treats null options as unset', () => {
    const plan = build({
      model: 'rm-4',
      messages: [{ role: 'user', content: 'x' }],
      temperature: null,
      max_tokens: null,
      stream: null,
    });
    expect(plan.ignored).toEqual([]);
    expect(plan.clientStream).toBe(false);
  });

  it.each([
    [{ model: 'gpt-4', messages: [{ role: 'user', content: 'x' }] }, 404, 'model'],
    [
      {
        model: 'rm-4',
        messages: [{ role: 'assistant', content: [{ type: 'image_url', image_url: 'http://x/y.png' }] }],
      },
      400,
      'messages.0.content.0',
    ],
    [
      {
        model: 'rm-4',
        messages: [
          { role: 'user', content: 'x' },
          {
            role: 'system',
            content: [
              { type: 'text', text: 't' },
              { type: 'image_url', image_url: 'http://x/y.png' },
            ],
          },
        ],
      },
      400,
      'messages.1.content.1',
    ],
    [{ model: 'rm-4', messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 400, 'temperature'],
    [{ model: 'rm-4', input: [] }, 400, 'input'],
  ])('refuses %j', (body, status, field) => {
    const err = thrown(() => build(body));
    expect(err).toBeInstanceOf(ProxyError);
    expect(err.status).toBe(status);
    expect(err.field).toBe(field);
  });
});
