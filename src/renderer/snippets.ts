// Copy-ready client set-up (PEERS.md: users want per-client help: which base URL, which key, which model id),
// built from the proxy's current address. Pure, so every snippet is unit-tested with literal output.

import type { ControlStatus } from '../proxy/control-api.js';

export interface SnippetInput {
  /** http://127.0.0.1:8000 (what a client on this machine uses). */
  baseUrl: string;
  /** The access key when one is set, else a dummy any client library accepts (SPEC.md §4 client libraries). */
  apiKey: string;
  model: string;
  sdk: ControlStatus['sdk'];
}

export interface Snippet {
  id: string;
  title: string;
  /** What to do with the text (where it goes). */
  hint: string;
  text: string;
}

export const dummyKey = 'dummy';

export function clientSnippets(input: SnippetInput): Snippet[] {
  const { baseUrl, apiKey, model, sdk } = input;
  const compat = `${baseUrl}/compat/v1`;
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
        `const client = new ${sdk.jsClass}({ baseURL: '${baseUrl}', apiKey: '${apiKey}' });`,
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
        `client = ${sdk.pyClass}(base_url="${baseUrl}", api_key="${apiKey}")`,
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
      id: 'continue',
      title: 'Continue',
      hint: 'add to ~/.continue/config.yaml',
      text: ['models:', '  - name: Assistant Proxy', '    provider: openai', `    model: ${model}`, `    apiBase: ${compat}`, `    apiKey: ${apiKey}`].join('\n'),
    },
    {
      id: 'cline',
      title: 'Cline',
      hint: 'Cline settings → API Provider',
      text: ['API Provider: OpenAI Compatible', `Base URL: ${compat}`, `API Key: ${apiKey}`, `Model ID: ${model}`].join('\n'),
    },
    {
      id: 'zed',
      title: 'Zed',
      hint: 'add to settings.json; enter the API key in the Agent panel settings',
      text: JSON.stringify(
        { language_models: { openai_compatible: { 'Assistant Proxy': { api_url: compat, available_models: [{ name: model, max_tokens: 200000 }] } } } },
        null,
        2,
      ),
    },
    {
      id: 'aider',
      title: 'Aider',
      hint: 'in a shell',
      text: [`export OPENAI_API_BASE=${compat}`, `export OPENAI_API_KEY=${apiKey}`, `aider --model openai/${model}`].join('\n'),
    },
  ];
}

/** The text shown on screen: the access key masked (the copied text keeps it). */
export function maskKey(text: string, apiKey: string): string {
  return apiKey === dummyKey || apiKey.length === 0 ? text : text.split(apiKey).join(`${apiKey.slice(0, 4)}…`);
}

/** The model suggested in snippets: the profile's first tool-mode model. */
export function snippetModel(models: string[]): string {
  return models.find((m) => !m.startsWith('rm-')) ?? models[0] ?? 'assistant-sonnet-4-20250514';
}
