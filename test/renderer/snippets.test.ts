import { describe, expect, it } from 'vitest';
import { clientSnippets, maskKey, snippetModel } from '../../src/renderer/snippets.js';

const sdk = { providerName: 'Provider', jsPackage: 'provider-sdk', jsClass: 'Provider', pyPackage: 'provider', pyClass: 'Provider' };
const base = { baseUrl: 'http://127.0.0.1:8000', apiKey: 'dummy', model: 'assistant-sonnet-4-20250514', sdk };
const byId = (input = base) => Object.fromEntries(clientSnippets(input).map((s) => [s.id, s]));

describe('client snippets', () => {
  it('offers the OpenAI SDK, the native SDK, curl, Continue, Cline, Zed and Aider', () => {
    expect(clientSnippets(base).map((s) => s.title)).toEqual([
      'OpenAI SDK (Python)',
      'OpenAI SDK (Node)',
      'Provider SDK (Node, native format)',
      'Provider SDK (Python, native format)',
      'curl',
      'Continue',
      'Cline',
      'Zed',
      'Aider',
    ]);
  });

  it('points compatible-format clients at /compat/v1 and native SDKs at the bare base URL', () => {
    const s = byId();
    expect(s['openai-node'].text).toBe(
      [
        "import OpenAI from 'openai';",
        '',
        "const client = new OpenAI({ baseURL: 'http://127.0.0.1:8000/compat/v1', apiKey: 'dummy' });",
        'const reply = await client.chat.completions.create({',
        "  model: 'assistant-sonnet-4-20250514',",
        "  messages: [{ role: 'user', content: 'Hello' }],",
        '});',
        'console.log(reply.choices[0].message.content);',
      ].join('\n'),
    );
    expect(s['native-node'].text).toContain("import Provider from 'provider-sdk';");
    expect(s['native-node'].text).toContain("new Provider({ baseURL: 'http://127.0.0.1:8000', apiKey: 'dummy' })");
    expect(s['native-python'].text).toContain('client = Provider(base_url="http://127.0.0.1:8000", api_key="dummy")');
    expect(s.curl.text).toBe(
      [
        'curl http://127.0.0.1:8000/compat/v1/chat/completions \\',
        "  -H 'Content-Type: application/json' \\",
        `  -d '{"model": "assistant-sonnet-4-20250514", "messages": [{"role": "user", "content": "Hello"}]}'`,
      ].join('\n'),
    );
    expect(s.continue.text).toBe(
      'models:\n  - name: Assistant Proxy\n    provider: openai\n    model: assistant-sonnet-4-20250514\n    apiBase: http://127.0.0.1:8000/compat/v1\n    apiKey: dummy',
    );
    expect(s.cline.text).toBe('API Provider: OpenAI Compatible\nBase URL: http://127.0.0.1:8000/compat/v1\nAPI Key: dummy\nModel ID: assistant-sonnet-4-20250514');
    expect(JSON.parse(s.zed.text)).toEqual({
      language_models: { openai_compatible: { 'Assistant Proxy': { api_url: 'http://127.0.0.1:8000/compat/v1', available_models: [{ name: 'assistant-sonnet-4-20250514', max_tokens: 200000 }] } } },
    });
    expect(s.aider.text).toBe('export OPENAI_API_BASE=http://127.0.0.1:8000/compat/v1\nexport OPENAI_API_KEY=dummy\naider --model openai/assistant-sonnet-4-20250514');
  });

  it('uses the access key when one is set (curl sends it as a bearer token), and masks it on screen', () => {
    const key = 'k3y-0123456789abcdef';
    const s = byId({ ...base, apiKey: key });
    expect(s.curl.text).toContain(`-H 'Authorization: Bearer ${key}'`);
    expect(s.aider.text).toContain(`OPENAI_API_KEY=${key}`);
    expect(maskKey(s.aider.text, key)).toContain('OPENAI_API_KEY=k3y-…');
    expect(maskKey(s.aider.text, key)).not.toContain(key);
    expect(maskKey('api_key="dummy"', 'dummy')).toBe('api_key="dummy"');
  });

  it('suggests a tool-mode model id', () => {
    expect(snippetModel(['rm-4', 'assistant-opus-4-20250514'])).toBe('assistant-opus-4-20250514');
    expect(snippetModel(['rm-4'])).toBe('rm-4');
  });
});
