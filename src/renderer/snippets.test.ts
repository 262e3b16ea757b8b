import { describe, expect, it } from 'vitest';
import { clientSnippets, maskKey, snippetModel, type SnippetInput } from './snippets.js';

const sdk = {
  providerName: 'Provider',
  jsPackage: 'provider-sdk',
  jsClass: 'Provider',
  pyPackage: 'provider',
  pyClass: 'Provider',
};
const base: SnippetInput = {
  baseUrl: 'http://127.0.0.1:8000',
  apiKey: 'dummy',
  model: 'assistant-sonnet-4-20250514',
  sdk,
  mode: 'tool',
};
const byId = (input = base) => Object.fromEntries(clientSnippets(input).map((s) => [s.id, s]));

describe('client snippets', () => {
  it('offers the OpenAI SDK, the native SDK, curl, the coding agents, Zed and Aider', () => {
    expect(clientSnippets(base).map((s) => s.title)).toEqual([
      'OpenAI SDK (Python)',
      'OpenAI SDK (Node)',
      'Provider SDK (Node, native format)',
      'Provider SDK (Python, native format)',
      'curl',
      'opencode',
      'Kilo',
      'Continue (cn and the editor extensions)',
      'Cline',
      'qwen-code',
      'pi',
      'Codex CLI',
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
    expect(JSON.parse(s.zed.text)).toEqual({
      language_models: {
        openai_compatible: {
          'Assistant Proxy': {
            api_url: 'http://127.0.0.1:8000/compat/v1',
            available_models: [{ name: 'assistant-sonnet-4-20250514', max_tokens: 200000 }],
          },
        },
      },
    });
    expect(s.aider.text).toBe(
      'export OPENAI_API_BASE=http://127.0.0.1:8000/compat/v1\nexport OPENAI_API_KEY=dummy\naider --model openai/assistant-sonnet-4-20250514',
    );
  });

  it('gives each coding agent the configuration the agents suite runs, for tool mode', () => {
    const s = byId();
    const openCode = (schema: string) => ({
      $schema: schema,
      provider: {
        'assistant-proxy': {
          npm: '@ai-sdk/anthropic',
          name: 'Assistant Proxy',
          options: { baseURL: 'http://127.0.0.1:8000/v1', apiKey: 'dummy' },
          models: { 'assistant-sonnet-4-20250514': {} },
        },
      },
      model: 'assistant-proxy/assistant-sonnet-4-20250514',
    });
    expect(JSON.parse(s.opencode.text)).toEqual(openCode('https://opencode.ai/config.json'));
    expect(JSON.parse(s.kilo.text)).toEqual(openCode('https://app.kilo.ai/config.json'));
    expect(s.continue.text).toBe(
      [
        'name: Assistant Proxy',
        'version: 1.0.0',
        'schema: v1',
        'models:',
        '  - name: Assistant Proxy',
        '    provider: openai',
        '    model: assistant-sonnet-4-20250514',
        '    apiBase: http://127.0.0.1:8000/compat/v1',
        '    apiKey: dummy',
        '    roles: [chat, edit, apply]',
        '    capabilities: [tool_use]',
      ].join('\n'),
    );
    expect(s.cline.text).toBe(
      'cline auth -p openai -k dummy -m assistant-sonnet-4-20250514 -b http://127.0.0.1:8000/compat/v1',
    );
    expect(s.qwen.text).toBe(
      'export OPENAI_BASE_URL=http://127.0.0.1:8000/compat/v1\nexport OPENAI_API_KEY=dummy\nexport OPENAI_MODEL=assistant-sonnet-4-20250514',
    );
    expect(JSON.parse(s.pi.text)).toEqual({
      providers: {
        'assistant-proxy': {
          baseUrl: 'http://127.0.0.1:8000',
          api: 'anthropic-messages',
          apiKey: 'dummy',
          models: [{ id: 'assistant-sonnet-4-20250514' }],
        },
      },
    });
    // No window given (the catalog does not know it): the keys are left out, and the snippet says so.
    expect(s.codex.text).toBe(
      [
        'model = "assistant-sonnet-4-20250514"',
        'model_provider = "assistant-proxy"',
        '# The model list gives no context window for this model: Codex assumes 272_000 tokens',
        '',
        '[model_providers.assistant-proxy]',
        'name = "Assistant Proxy"',
        'base_url = "http://127.0.0.1:8000/compat/v1"',
        'wire_api = "responses"',
        'supports_websockets = true',
      ].join('\n'),
    );
  });

  it("tells Codex the model's context window from the catalog, and compacts at 90 % of it less the answer's room", () => {
    // 200K window, 64K largest answer: the proxy's 32,000 for an answer that thinks is what an answer takes.
    expect(byId({ ...base, contextLength: 200_000, maxTokens: 64_000 }).codex.text).toBe(
      [
        'model = "assistant-sonnet-4-20250514"',
        'model_provider = "assistant-proxy"',
        "# The model's context window; compact at 90% of it less 32_000 for the answer",
        'model_context_window = 200_000',
        'model_auto_compact_token_limit = 148_000',
        '',
        '[model_providers.assistant-proxy]',
        'name = "Assistant Proxy"',
        'base_url = "http://127.0.0.1:8000/compat/v1"',
        'wire_api = "responses"',
        'supports_websockets = true',
      ].join('\n'),
    );
    // A model whose largest answer is below 32,000 reserves only that; no largest answer known: 32,000.
    expect(byId({ ...base, contextLength: 200_000, maxTokens: 8192 }).codex.text).toContain(
      [
        "# The model's context window; compact at 90% of it less 8_192 for the answer",
        'model_context_window = 200_000',
        'model_auto_compact_token_limit = 171_808',
        '',
      ].join('\n'),
    );
    expect(byId({ ...base, contextLength: 200_000 }).codex.text).toContain(
      'model_auto_compact_token_limit = 148_000\n',
    );
    // A window past Codex's cap for a model it has no metadata for: the snippet says where Codex compacts instead.
    expect(byId({ ...base, contextLength: 1_000_000, maxTokens: 128_000 }).codex.text).toContain(
      [
        "# The model's context window; compact at 90% of it less 32_000 for the answer",
        'model_context_window = 1_000_000',
        'model_auto_compact_token_limit = 868_000',
        '# Codex caps the window of a model it has no metadata for at 272_000: it compacts at 244_800',
        '',
        '[model_providers.assistant-proxy]',
      ].join('\n'),
    );
    // The other snippets do not change with the window.
    const plain = byId();
    const told = byId({ ...base, contextLength: 200_000, maxTokens: 64_000 });
    for (const id of Object.keys(plain).filter((id) => id !== 'codex')) expect(told[id].text).toBe(plain[id].text);
  });

  it('points every snippet at direct mode when asked: /api/v1 for OpenAI format and AI-SDK native, /api for the native SDK', () => {
    const s = byId({ ...base, mode: 'direct' });
    expect(s['openai-python'].text).toContain('OpenAI(base_url="http://127.0.0.1:8000/api/v1", api_key="dummy")');
    expect(s['native-python'].text).toContain('Provider(base_url="http://127.0.0.1:8000/api", api_key="dummy")');
    expect(s.curl.text).toContain('curl http://127.0.0.1:8000/api/v1/chat/completions');
    expect(JSON.parse(s.opencode.text).provider['assistant-proxy'].options.baseURL).toBe(
      'http://127.0.0.1:8000/api/v1',
    );
    expect(JSON.parse(s.kilo.text).provider['assistant-proxy'].options.baseURL).toBe('http://127.0.0.1:8000/api/v1');
    expect(s.continue.text).toContain('    apiBase: http://127.0.0.1:8000/api/v1\n');
    expect(s.cline.text).toBe(
      'cline auth -p openai -k dummy -m assistant-sonnet-4-20250514 -b http://127.0.0.1:8000/api/v1',
    );
    expect(s.qwen.text).toContain('export OPENAI_BASE_URL=http://127.0.0.1:8000/api/v1\n');
    expect(JSON.parse(s.pi.text).providers['assistant-proxy'].baseUrl).toBe('http://127.0.0.1:8000/api');
    expect(s.aider.text).toContain('export OPENAI_API_BASE=http://127.0.0.1:8000/api/v1\n');
    expect(s.codex.text).toContain('base_url = "http://127.0.0.1:8000/api/v1"\n');
  });

  it('uses the access key when one is set (curl sends it as a bearer token), and masks it on screen', () => {
    const key = 'k3y-0123456789abcdef';
    const s = byId({ ...base, apiKey: key });
    expect(s.curl.text).toContain(`-H 'Authorization: Bearer ${key}'`);
    expect(s.aider.text).toContain(`OPENAI_API_KEY=${key}`);
    expect(s.codex.text).toContain(`experimental_bearer_token = "${key}"`);
    expect(maskKey(s.aider.text, key)).toContain('OPENAI_API_KEY=k3y-…');
    expect(maskKey(s.aider.text, key)).not.toContain(key);
    expect(maskKey('api_key="dummy"', 'dummy')).toBe('api_key="dummy"');
  });

  it("suggests the catalog's mid-priced default, not the most expensive model", () => {
    expect(snippetModel(['assistant-opus-4-6', 'assistant-sonnet-4-6', 'rm-4'], 'assistant-sonnet-4-6')).toBe(
      'assistant-sonnet-4-6',
    );
    // A default the list does not have (a stale status): the first tool-mode model.
    expect(snippetModel(['rm-4', 'assistant-opus-4-6'], 'assistant-gone-1')).toBe('assistant-opus-4-6');
    expect(snippetModel(['rm-4'])).toBe('rm-4');
  });
});
