// Records what the real assistant CLI prints when the model calls a tool of an MCP server given with --mcp-config,
// against the provider simulator on 127.0.0.1 (test/fixtures/cli-recordings/README.md "mcp-tool-*"). Run:
//   REAL_ASSISTANT_CLI=<path to the CLI> npx tsx scripts/record-cli-mcp-tools.ts <out dir> [tool calls per turn] [hold ms]
// (hold ms: how long each call waits for its result, default 1000; and the per-server `timeout` the config gives)
// It writes <out dir>/mcp-tool.stdout (the CLI's stdout), mcp-tool.mcp.jsonl (every MCP request the server got) and
// mcp-tool.upstream.json (the bodies the simulator received). Nothing reaches a real provider.

import { execa } from 'execa';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { recordingBed } from './recording-bed.js';

const outDir = process.argv[2] ?? '.';
const calls = Number(process.argv[3] ?? '1');
const holdMs = Number(process.argv[4] ?? '1000');

const { cli, sim, home } = await recordingBed('mcp', {
  toolInput: { city: 'Paris' },
  toolCalls: calls,
  replyText: 'unused',
});

const mcpLog: unknown[] = [];
const secret = randomBytes(16).toString('hex');
const server = new Server({ name: 'rec', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'get_weather',
      description: 'Weather of a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    {
      name: 'get_time',
      description: 'Time in a city',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (req) => {
  mcpLog.push({ at: 'call', params: req.params });
  await new Promise((r) => setTimeout(r, holdMs));
  return { content: [{ type: 'text', text: `sunny (${req.params.name})` }] };
});
const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
await server.connect(transport);
const http = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  mcpLog.push({ at: 'http', method: req.method, auth: req.headers.authorization === `Bearer ${secret}`, body });
  await transport.handleRequest(req, res, body);
});
await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
const port = (http.address() as { port: number }).port;
const config = join(home, 'mcp.json');
await writeFile(
  config,
  JSON.stringify({
    mcpServers: {
      c: {
        type: 'http',
        url: `http://127.0.0.1:${port}/mcp`,
        headers: { Authorization: `Bearer ${secret}` },
        timeout: holdMs + 60_000,
      },
    },
  }),
  { mode: 0o600 },
);

const args = [
  '-p',
  '--input-format',
  'stream-json',
  '--output-format',
  'stream-json',
  '--verbose',
  '--include-partial-messages',
  '--model',
  'claude-sonnet-4-20250514',
  '--tools',
  '',
  '--strict-mcp-config',
  '--mcp-config',
  config,
  '--allowedTools',
  'mcp__c__get_weather,mcp__c__get_time',
  '--setting-sources',
  '',
  '--no-session-persistence',
];
const child = await execa(cli, args, {
  input: `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'What is the weather in Paris?' } })}\n`,
  cwd: home,
  env: {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_BASE_URL: sim.url,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  },
  extendEnv: false,
  reject: false,
  timeout: 120_000 + holdMs,
});
const redact = (s: string) => s.split(home).join('/home/user').split(String(port)).join('PORT');
await writeFile(join(outDir, 'mcp-tool.stdout'), redact(child.stdout));
await writeFile(join(outDir, 'mcp-tool.mcp.jsonl'), redact(mcpLog.map((l) => JSON.stringify(l)).join('\n') + '\n'));
await writeFile(
  join(outDir, 'mcp-tool.upstream.json'),
  redact(
    JSON.stringify(
      sim.requests('/v1/messages').map((r) => r.json),
      null,
      1,
    ),
  ),
);
console.log('exit', child.exitCode, 'stderr', child.stderr.slice(-500));
http.close();
await sim.close();
process.exit(0);
