// Copy-ready client set-up (docs/lessons.md "Desktop app habits": per-client help: base URL, key, model id),
// built from the proxy's current address, for tool mode or direct mode. Pure, so every snippet is unit-tested with
// literal output. The coding agents' snippets are the configurations the agents suite runs (test/agents/agents.ts,
// docs/clients.md "Coding agents"): keep the three in step.

import type { ControlStatus } from '../proxy/control-api.js';

export interface SnippetInput {
  /** http://127.0.0.1:8000 (what a client on this machine uses). */
  baseUrl: string;
  /** The access key when one is set, else a dummy any client library accepts (docs/interface.md "Authentication"). */
  apiKey: string;
  model: string;
  sdk: ControlStatus['sdk'];
  /** Which mode the client is pointed at: tool (the user's CLI) or direct (the provider's API). */
  mode: SnippetMode;
  /** The model's context window in tokens, as the live catalog gives it (ControlStatus.modelDetails); absent when the
   * catalog does not know it. */
  contextLength?: number;
  /** The model's largest max_tokens, as the catalog gives it. */
  maxTokens?: number;
}

export type SnippetMode = 'tool' | 'direct';

export interface Snippet {
  id: string;
  title: string;
  /** What to do with the text (where it goes). */
  hint: string;
  text: string;
}

export const dummyKey = 'dummy';

/** Tokens as TOML writes them readably: 200000 -> 200_000. */
const tomlInt = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, '_');

/** The window Codex 0.171 gives a model it has no metadata for (every id the proxy serves), and the most it lets
 * model_context_window raise it to (measured: docs/clients.md "Codex's context window"). */
const codexFallbackWindow = 272_000;

/** The output limit the proxy gives an answer that thinks when the client sets none, as Codex sets none (docs/models.md
 * "What the proxy does with each field": 32,000, lowered to the model's largest max_tokens). */
const thinkingAnswerTokens = 32_000;

/**
 * Codex's context lines (docs/clients.md "Codex's context window"): the model's window from the catalog, and where it
 * compacts. Codex compacts when the tokens of the last exchange pass model_auto_compact_token_limit (by itself, 90 % of
 * the window); the next request adds the turn's new items, and the window holds the prompt and the answer together
 * (thinking counts against the answer: docs/models.md). A prompt over the window is the provider's refusal, which Codex
 * takes as context_length_exceeded and ends the turn without compacting. So the limit is 90 % of the window less the
 * most an answer takes, the other 10 % left for the new items. Without the window the keys are left out and a comment
 * says so: Codex then assumes 272,000 tokens, more than most models here have.
 */
function codexContextLines(contextLength: number | undefined, maxTokens: number | undefined): string[] {
  if (!contextLength) return ['# The model list gives no context window for this model: Codex assumes 272_000 tokens'];
  const answer = Math.min(thinkingAnswerTokens, maxTokens ?? thinkingAnswerTokens);
  const limit = Math.max(Math.floor(contextLength * 0.9) - answer, Math.floor(contextLength / 2));
  const lines = [
    `# The model's context window; compact at 90% of it less ${tomlInt(answer)} for the answer`,
    `model_context_window = ${tomlInt(contextLength)}`,
    `model_auto_compact_token_limit = ${tomlInt(limit)}`,
  ];
  if (contextLength > codexFallbackWindow) {
    const capped = Math.min(limit, Math.floor(codexFallbackWindow * 0.9));
    lines.push(
      `# Codex caps the window of a model it has no metadata for at ${tomlInt(codexFallbackWindow)}: it compacts at ${tomlInt(capped)}`,
    );
  }
  return lines;
}

export function clientSnippets(input: SnippetInput): Snippet[] {
  const { baseUrl, apiKey, model, sdk, mode, contextLength, maxTokens } = input;
  // Each SDK appends its own path (docs/clients.md, "Which base URL"): an OpenAI-format client /chat/completions, the
  // native SDK /v1/messages, an AI-SDK native provider /messages.
  const compat = mode === 'tool' ? `${baseUrl}/compat/v1` : `${baseUrl}/api/v1`;
  const native = mode === 'tool' ? baseUrl : `${baseUrl}/api`;
  const aiSdkNative = `${native}/v1`;
  const openCode = (schema: string) =>
    JSON.stringify(
      {
        $schema: schema,
        provider: {
          'assistant-proxy': {
            npm: '@ai-sdk/anthropic',
            name: 'Assistant Proxy',
            options: { baseURL: aiSdkNative, apiKey },
            models: { [model]: {} },
          },
        },
        model: `assistant-proxy/${model}`,
      },
      null,
      2,
    );
  const authHeader = apiKey === dummyKey ? '' : ` \\\n  -H 'Authorization: Bearer ${apiKey}'`;
  return [
    {
      id: 'openai-python',
      title: 'OpenAI SDK (Python)',
      hint: 'pip install openai',
      text: [
        'from openai import OpenAI',
        '',
        `client = OpenAI(base_url="${compat}", api_key="${apiKey}")`,
        'reply = client.chat.completions.create(',
        `    model="${model}",`,
        '    messages=[{"role": "user", "content": "Hello"}],',
        ')',
        'print(reply.choices[0].message.content)',
      ].join('\n'),
    },
    {
      id: 'openai-node',
      title: 'OpenAI SDK (Node)',
      hint: 'npm install openai',
      text: [
        "import OpenAI from 'openai';",
        '',
        `const client = new OpenAI({ baseURL: '${compat}', apiKey: '${apiKey}' });`,
        'const reply = await client.chat.completions.create({',
        `  model: '${model}',`,
        "  messages: [{ role: 'user', content: 'Hello' }],",
        '});',
        'console.log(reply.choices[0].message.content);',
      ].join('\n'),
    },
    {
      id: 'native-node',
      title: `${sdk.providerName} SDK (Node, native format)`,
      hint: `npm install ${sdk.jsPackage}`,
      text: [
        `import ${sdk.jsClass} from '${sdk.jsPackage}';`,
        '',
        `const client = new ${sdk.jsClass}({ baseURL: '${native}', apiKey: '${apiKey}' });`,
        'const message = await client.messages.create({',
        `  model: '${model}',`,
        '  max_tokens: 1024,',
        "  messages: [{ role: 'user', content: 'Hello' }],",
        '});',
        'console.log(message.content);',
      ].join('\n'),
    },
    {
      id: 'native-python',
      title: `${sdk.providerName} SDK (Python, native format)`,
      hint: `pip install ${sdk.pyPackage}`,
      text: [
        `from ${sdk.pyPackage} import ${sdk.pyClass}`,
        '',
        `client = ${sdk.pyClass}(base_url="${native}", api_key="${apiKey}")`,
        'message = client.messages.create(',
        `    model="${model}",`,
        '    max_tokens=1024,',
        '    messages=[{"role": "user", "content": "Hello"}],',
        ')',
        'print(message.content)',
      ].join('\n'),
    },
    {
      id: 'curl',
      title: 'curl',
      hint: 'compatible format; add "stream": true for Server-Sent Events',
      text: [
        `curl ${compat}/chat/completions \\`,
        `  -H 'Content-Type: application/json'${authHeader} \\`,
        `  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`,
      ].join('\n'),
    },
    {
      id: 'opencode',
      title: 'opencode',
      hint: 'save as ~/.config/opencode/opencode.json, then opencode (or opencode run "…")',
      text: openCode('https://opencode.ai/config.json'),
    },
    {
      id: 'kilo',
      title: 'Kilo',
      hint: 'save as ~/.config/kilo/kilo.json, then kilo (or kilo run "…")',
      text: openCode('https://app.kilo.ai/config.json'),
    },
    {
      id: 'continue',
      title: 'Continue (cn and the editor extensions)',
      hint: 'save as ~/.continue/config.yaml (cn needs the name, version and schema lines), then cn',
      text: [
        'name: Assistant Proxy',
        'version: 1.0.0',
        'schema: v1',
        'models:',
        '  - name: Assistant Proxy',
        '    provider: openai',
        `    model: ${model}`,
        `    apiBase: ${compat}`,
        `    apiKey: ${apiKey}`,
        '    roles: [chat, edit, apply]',
        '    capabilities: [tool_use]',
      ].join('\n'),
    },
    {
      id: 'cline',
      title: 'Cline',
      hint: 'in a shell, then cline "…"; in the editor: API Provider "OpenAI Compatible" with this base URL, key and model',
      text: `cline auth -p openai -k ${apiKey} -m ${model} -b ${compat}`,
    },
    {
      id: 'qwen',
      title: 'qwen-code',
      hint: 'in a shell, then qwen (or qwen -p "…")',
      text: [
        `export OPENAI_BASE_URL=${compat}`,
        `export OPENAI_API_KEY=${apiKey}`,
        `export OPENAI_MODEL=${model}`,
      ].join('\n'),
    },
    {
      id: 'pi',
      title: 'pi',
      hint: `save as ~/.pi/agent/models.json, then pi --provider assistant-proxy --model ${model}`,
      text: JSON.stringify(
        {
          providers: {
            'assistant-proxy': { baseUrl: native, api: 'anthropic-messages', apiKey, models: [{ id: model }] },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'codex',
      title: 'Codex CLI',
      hint: 'save as ~/.codex/config.toml, then codex (or codex exec "…")',
      // Codex speaks only the Responses API: wire_api "responses" on the compatible base, which serves /responses,
      // over its WebSocket when the provider says it can (docs/responses-socket.md): later turns then send only
      // their new items. It knows no model id of ours, so the context window comes from the catalog.
      text: [
        `model = "${model}"`,
        'model_provider = "assistant-proxy"',
        ...codexContextLines(contextLength, maxTokens),
        '',
        '[model_providers.assistant-proxy]',
        'name = "Assistant Proxy"',
        `base_url = "${compat}"`,
        'wire_api = "responses"',
        'supports_websockets = true',
        ...(apiKey === dummyKey ? [] : [`experimental_bearer_token = "${apiKey}"`]),
      ].join('\n'),
    },
    {
      id: 'zed',
      title: 'Zed',
      hint: 'add to settings.json; enter the API key in the Agent panel settings',
      text: JSON.stringify(
        {
          language_models: {
            openai_compatible: {
              'Assistant Proxy': { api_url: compat, available_models: [{ name: model, max_tokens: 200000 }] },
            },
          },
        },
        null,
        2,
      ),
    },
    {
      id: 'aider',
      title: 'Aider',
      hint: 'in a shell',
      text: [
        `export OPENAI_API_BASE=${compat}`,
        `export OPENAI_API_KEY=${apiKey}`,
        `aider --model openai/${model}`,
      ].join('\n'),
    },
  ];
}

/** The text shown on screen: the access key masked (the copied text keeps it). */
export function maskKey(text: string, apiKey: string): string {
  return apiKey === dummyKey || apiKey.length === 0 ? text : text.split(apiKey).join(`${apiKey.slice(0, 4)}…`);
}

/** The model suggested in snippets: the catalog's mid-priced default (the newest sonnet-class model, not the most
 * expensive), else the catalog's first tool-mode model. */
export function snippetModel(models: string[], preferred?: string): string {
  if (preferred && models.includes(preferred)) return preferred;
  return models.find((m) => !m.startsWith('rm-')) ?? models[0] ?? 'assistant-sonnet-4-6';
}
