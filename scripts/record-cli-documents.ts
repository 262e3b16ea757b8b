// Records what the real assistant CLI sends the provider for a user turn holding documents, and what it does with a
// JSON schema given in the `initialize` control request on stdin instead of `--json-schema`, against the provider
// simulator on 127.0.0.1 (test/fixtures/cli-recordings/README.md "Documents, and a schema on stdin"). Run:
//   REAL_ASSISTANT_CLI=<path to the CLI> npx tsx scripts/record-cli-documents.ts <out dir>
// It writes <out dir>/document.upstream.json (the turn's blocks as the provider received them: a base64 PDF with title,
// context and citations, a plain-text document, a PDF by URL) and structured-init.stdout (the schema in the control
// request: the CLI answers it with a control_response, offers its StructuredOutput tool and prints the object, as
// structured.stdout does with the flag). Nothing reaches a real provider.

import { execa } from 'execa';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { recordingBed } from './recording-bed.js';

const outDir = process.argv[2] ?? '.';

const answer = { city: 'Paris', temp: 21 };
const { cli, sim, home } = await recordingBed('documents', {
  toolInput: answer,
  toolName: 'StructuredOutput',
  replyText: 'Sunny.',
});

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const user = (content: unknown) => line({ type: 'user', message: { role: 'user', content } });

/** One print-mode run with the proxy's own flags and `input` on stdin; its stdout. */
async function run(input: string): Promise<string> {
  sim.reset();
  const child = await execa(
    cli,
    [
      ...['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'],
      ...['--model', 'claude-opus-5-5', '--tools', '', '--setting-sources', ''],
      ...['--strict-mcp-config', '--mcp-config', '{"mcpServers":{}}', '--no-session-persistence'],
      ...['--system-prompt', 'You are terse.'],
    ],
    {
      input,
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_BASE_URL: sim.url,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        CLAUDE_CODE_MAX_RETRIES: '0',
      },
      extendEnv: false,
      reject: false,
      timeout: 120_000,
    },
  );
  return child.stdout.replaceAll(home, '/home/user');
}

const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64');
await run(
  user([
    {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: pdf },
      title: 'report.pdf',
      context: 'the quarterly report',
      citations: { enabled: true },
    },
    { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain words.' }, title: 'notes.txt' },
    { type: 'document', source: { type: 'url', url: 'https://example.com/a.pdf' } },
    { type: 'text', text: 'Summarise these.' },
  ]),
);
// The turn's request: the one whose user message holds the documents (the CLI may make side requests first, and
// may end its messages with one of another role).
type Sent = { messages: Array<{ role: string; content: Array<{ type: string }> | string }> };
const turns = sim
  .requests('/v1/messages')
  .flatMap((r) => (r.json as Sent).messages.filter((m) => m.role === 'user').map((m) => m.content))
  .filter((c): c is Array<{ type: string }> => Array.isArray(c) && c.some((b) => b.type === 'document'));
const blocks = turns[0] ?? [];
await writeFile(
  join(outDir, 'document.upstream.json'),
  `${JSON.stringify(
    blocks.filter((b) => b.type !== 'text'),
    null,
    2,
  )}\n`,
);

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number' } },
  required: ['city', 'temp'],
};
const initialize = line({
  type: 'control_request',
  request_id: 'schema',
  request: { subtype: 'initialize', jsonSchema: schema },
});
await writeFile(join(outDir, 'structured-init.stdout'), await run(initialize + user('Weather in Paris?')));
await sim.close();
