// The six coding agents of the agents suite, each set up for a custom provider the way its own documentation says,
// in its default configuration (its own tools on), in its one-shot mode. docs/clients.md ("Coding agents") gives
// users the same settings; keep the two in step.
//
// Base URLs follow each agent's SDK (docs/clients.md, "Which base URL"):
// - AI-SDK agents with a native provider (opencode, Kilo) take a base ending in /v1 and append /messages;
// - pi's native provider takes the bare base and appends /v1/messages;
// - OpenAI-format agents (cn, Cline, qwen-code) take the chat-completions base ending in /v1.

import { join } from 'node:path';

export type Mode = 'tool' | 'direct';

export interface AgentRun {
  /** Commands run first, in order (an agent whose provider is set by its own `auth` command). */
  setup: string[][];
  /** The one-shot run; its stdout carries the final answer. */
  args: string[];
  env: Record<string, string>;
  /** Files written before the run, by absolute path. */
  files: Record<string, string>;
}

export interface RunContext {
  /** http://127.0.0.1:PORT of the proxy, no trailing slash. */
  proxyUrl: string;
  mode: Mode;
  home: string;
  cwd: string;
  model: string;
  prompt: string;
}

export interface Agent {
  /** Short name, also the cache directory under .cache/agents (scripts/setup-agents.sh). */
  name: string;
  /** The npm package and the version scripts/setup-agents.sh pins. */
  pkg: string;
  /** The binary, relative to the agent's cache directory. */
  bin: string;
  /** Which wire format the agent speaks to the proxy. */
  format: 'native' | 'openai';
  configure(ctx: RunContext): AgentRun;
}

/** The native base for an AI-SDK agent: it appends /messages. */
const aiSdkNativeBase = (ctx: RunContext) => (ctx.mode === 'tool' ? `${ctx.proxyUrl}/v1` : `${ctx.proxyUrl}/api/v1`);
/** The native base for an agent on the native SDK: it appends /v1/messages. */
const nativeSdkBase = (ctx: RunContext) => (ctx.mode === 'tool' ? ctx.proxyUrl : `${ctx.proxyUrl}/api`);
/** The OpenAI-format base: the agent appends /chat/completions. */
const openaiBase = (ctx: RunContext) => (ctx.mode === 'tool' ? `${ctx.proxyUrl}/compat/v1` : `${ctx.proxyUrl}/api/v1`);

/** opencode and Kilo share a config schema (Kilo is built on opencode): a custom provider on the AI SDK's native package. */
function openCodeConfig(ctx: RunContext, schema: string): string {
  return JSON.stringify(
    {
      $schema: schema,
      provider: {
        'assistant-proxy': {
          npm: '@ai-sdk/anthropic',
          name: 'Assistant Proxy',
          options: { baseURL: aiSdkNativeBase(ctx), apiKey: 'dummy' },
          models: { [ctx.model]: { name: 'Assistant Sonnet 4' } },
        },
      },
      model: `assistant-proxy/${ctx.model}`,
    },
    null,
    2,
  );
}

export const agents: Agent[] = [
  {
    name: 'opencode',
    pkg: 'opencode-ai@1.18.33',
    bin: 'node_modules/.bin/opencode',
    format: 'native',
    configure: (ctx) => ({
      setup: [],
      args: ['run', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.config/opencode/opencode.json')]: openCodeConfig(ctx, 'https://opencode.ai/config.json') },
    }),
  },
  {
    name: 'kilo',
    pkg: '@kilocode/cli@7.7.7',
    bin: 'node_modules/.bin/kilo',
    format: 'native',
    configure: (ctx) => ({
      setup: [],
      args: ['run', ctx.prompt],
      env: {},
      files: { [join(ctx.home, '.config/kilo/kilo.json')]: openCodeConfig(ctx, 'https://app.kilo.ai/config.json') },
    }),
  },
  {
    name: 'cn',
    pkg: '@continuedev/cli@1.5.47',
    bin: 'node_modules/.bin/cn',
    format: 'openai',
    configure: (ctx) => ({
      setup: [],
      args: ['-p', ctx.prompt],
      env: {},
      // cn refuses a config.yaml without the top-level name, version and schema.
      files: {
        [join(ctx.home, '.continue/config.yaml')]: [
          'name: Assistant Proxy',
          'version: 1.0.0',
          'schema: v1',
          'models:',
          '  - name: Assistant',
          '    provider: openai',
          `    model: ${ctx.model}`,
          `    apiBase: ${openaiBase(ctx)}`,
          '    apiKey: dummy',
          '    roles: [chat, edit, apply]',
          '    capabilities: [tool_use]',
          '',
        ].join('\n'),
      },
    }),
  },
  {
    name: 'cline',
    pkg: 'cline@3.0.65',
    bin: 'node_modules/.bin/cline',
    format: 'openai',
    // `cline auth` takes a base URL only for the OpenAI-compatible provider.
    configure: (ctx) => ({
      setup: [['auth', '-p', 'openai', '-k', 'dummy', '-m', ctx.model, '-b', openaiBase(ctx)]],
      args: [ctx.prompt],
      env: {},
      files: {},
    }),
  },
  {
    name: 'qwen',
    pkg: '@qwen-code/qwen-code@0.15.10',
    bin: 'node_modules/.bin/qwen',
    format: 'openai',
    configure: (ctx) => ({
      setup: [],
      args: ['-p', ctx.prompt],
      env: { OPENAI_API_KEY: 'dummy', OPENAI_BASE_URL: openaiBase(ctx), OPENAI_MODEL: ctx.model },
      files: { [join(ctx.home, '.qwen/settings.json')]: JSON.stringify({ security: { auth: { selectedType: 'openai' } } }, null, 2) },
    }),
  },
  {
    name: 'pi',
    pkg: '@mariozechner/pi-coding-agent@0.73.1',
    bin: 'node_modules/.bin/pi',
    format: 'native',
    configure: (ctx) => ({
      setup: [],
      args: ['--provider', 'assistant-proxy', '--model', ctx.model, '-p', ctx.prompt],
      env: {},
      files: {
        [join(ctx.home, '.pi/agent/models.json')]: JSON.stringify(
          { providers: { 'assistant-proxy': { baseUrl: nativeSdkBase(ctx), api: 'anthropic-messages', apiKey: 'dummy', models: [{ id: ctx.model, name: 'Assistant Sonnet 4' }] } } },
          null,
          2,
        ),
      },
    }),
  },
];
