// Records what the real assistant CLI does with --json-schema and --effort (and its thinking-budget variable),
// against the provider simulator on 127.0.0.1 (test/fixtures/cli-recordings/README.md "Effort and JSON schemas"). Run:
//   REAL_ASSISTANT_CLI=<path to the CLI> npx tsx scripts/record-cli-structured.ts <out dir>
// It writes <out dir>/structured.stdout (a schema the model's tool call meets), structured-miss.stdout (one it never
// meets) and effort.upstream.json (for each model and setting, what the simulator received: max_tokens, thinking,
// output_config, temperature, and the tools offered). Nothing reaches a real provider.

import { execa } from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordingBed } from './recording-bed.js';

const outDir = process.argv[2] ?? '.';

const answer = { city: 'Paris', temp: 21 };
const { cli, sim, home } = await recordingBed('structured', {
  toolInput: answer,
  toolName: 'StructuredOutput',
  replyText: 'Sunny.',
});

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number' } },
  required: ['city', 'temp'],
};
const unmet = { type: 'object', properties: { city: { type: 'number' } }, required: ['city'] };

/** One print-mode run with the proxy's own flags; returns stdout and what the simulator received. */
async function run(model: string, flags: string[], env: Record<string, string>) {
  sim.reset();
  const child = await execa(
    cli,
    [
      ...['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'],
      ...['--include-partial-messages', '--model', model, '--tools', '', '--setting-sources', ''],
      ...['--strict-mcp-config', '--mcp-config', '{"mcpServers":{}}', '--no-session-persistence'],
      ...['--system-prompt', 'You are terse.', ...flags],
    ],
    {
      input: `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'Weather in Paris?' } })}\n`,
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: sim.url,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
        ...env,
      },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    },
  );
  const sent = sim.requests('/v1/messages').map((r) => {
    const body = r.json as Record<string, unknown>;
    const tools = (body.tools as Array<{ name: string; input_schema?: unknown }> | undefined) ?? [];
    return {
      max_tokens: body.max_tokens,
      thinking: body.thinking,
      output_config: body.output_config,
      temperature: body.temperature,
      tools: tools.map((t) => (t.name === 'StructuredOutput' ? t : t.name)),
    };
  });
  return { stdout: child.stdout.split(home).join('/home/user'), sent, exitCode: child.exitCode };
}

const structured = await run('claude-opus-5-5', ['--json-schema', JSON.stringify(schema)], {});
await writeFile(join(outDir, 'structured.stdout'), `${structured.stdout}\n`);
const miss = await run('claude-opus-5-5', ['--json-schema', JSON.stringify(unmet)], {});
await writeFile(join(outDir, 'structured-miss.stdout'), `${miss.stdout}\n`);

const settings: Array<{ flags: string[]; env: Record<string, string> }> = [
  { flags: [], env: { MAX_THINKING_TOKENS: '0' } },
  { flags: ['--effort', 'low'], env: { MAX_THINKING_TOKENS: '0' } },
  { flags: [], env: { MAX_THINKING_TOKENS: '4096' } },
  { flags: ['--effort', 'low'], env: { MAX_THINKING_TOKENS: '1024' } },
  { flags: ['--effort', 'high'], env: { MAX_THINKING_TOKENS: '7999' } },
  { flags: ['--effort', 'max'], env: {} },
];
const rows = [{ model: 'claude-opus-5-5', flags: ['--json-schema', '<schema>'], env: {}, sent: structured.sent }];
for (const model of ['claude-opus-5-5', 'claude-sonnet-4-6', 'claude-haiku-4-5']) {
  for (const s of settings) {
    const env = { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '8000', ...s.env };
    rows.push({ model, flags: s.flags, env, sent: (await run(model, s.flags, env)).sent });
  }
}
await writeFile(join(outDir, 'effort.upstream.json'), `${JSON.stringify(rows, null, 1)}\n`);
console.log(`structured exit ${structured.exitCode}, miss exit ${miss.exitCode}, ${rows.length} effort rows`);
await sim.close();
