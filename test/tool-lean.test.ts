// What a tool-mode child is given, through the proxy with the fake CLI (docs/tool-mode.md "Isolation", "Lean by
// default", "Thinking"): thinking only when the request asks, with its budget below max_tokens (max_tokens 100:
// none, and the field named in X-Proxy-Ignored-Params); CLI_USER_SETUP=on leaves the user's set-up alone.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeCliRecord } from './fixtures/fake-cli.js';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
let bed: ToolBed;
beforeAll(async () => {
  bed = await startToolBed();
});
afterAll(async () => {
  await bed?.close();
});

async function lastChat(b: ToolBed): Promise<FakeCliRecord> {
  return (await b.cli.chatRecords()).at(-1)!;
}

describe('thinking as the client asks', () => {
  it('is off without a request for it', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 4000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect((await lastChat(bed)).env.MAX_THINKING_TOKENS).toBe('0');
  });

  it('passes a native budget on, cut below max_tokens', async () => {
    await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((await lastChat(bed)).env.MAX_THINKING_TOKENS).toBe('2000');
    await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 3000,
      thinking: { type: 'enabled', budget_tokens: 9000 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((await lastChat(bed)).env.MAX_THINKING_TOKENS).toBe('2999');
  });

  it('with max_tokens 100: answers without thinking and names the field it could not honour', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 100,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')).toContain('thinking');
    expect((await lastChat(bed)).env).toMatchObject({ MAX_THINKING_TOKENS: '0', CLAUDE_CODE_MAX_OUTPUT_TOKENS: '100' });
  });

  it("gives the compatible reasoning_effort to the CLI as its effort, with adaptive thinking; 'minimal' is off", async () => {
    const res = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      max_tokens: 8000,
      reasoning_effort: 'medium',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params') ?? '').not.toContain('reasoning_effort');
    // The format states the effort as adaptive thinking (docs/models.md): max_tokens - 1, and the level as --effort.
    const chat = await lastChat(bed);
    expect(chat.env.MAX_THINKING_TOKENS).toBe('7999');
    expect(chat.argv[chat.argv.indexOf('--effort') + 1]).toBe('medium');
    await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      reasoning_effort: 'minimal',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((await lastChat(bed)).env.MAX_THINKING_TOKENS).toBe('0');
  });

  it('refuses a malformed thinking field or effort with a 400 naming it', async () => {
    const native = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 100,
      thinking: { type: 'enabled' },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(native.status).toBe(400);
    expect(JSON.stringify(await native.json())).toContain('thinking');
    const compat = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      reasoning_effort: 'extreme',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(compat.status).toBe(400);
    expect(JSON.stringify(await compat.json())).toContain('reasoning_effort');
  });
});

describe('CLI_USER_SETUP', () => {
  it('on: no isolation flag and no isolation variable; the system prompt still goes through a file', async () => {
    const b = await startToolBed({}, { cliUserSetup: true });
    try {
      await postJson(`${b.url}/v1/messages`, {
        model,
        max_tokens: 10,
        system: 'Be kind.',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const rec = await lastChat(b);
      expect(rec.argv.join(' ')).not.toMatch(
        /--setting-sources|--strict-mcp-config|--mcp-config|--no-session-persistence/,
      );
      expect(rec.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBeNull();
      expect(rec.argv).toContain('--tools');
      expect(rec.systemPrompt).toBe('Be kind.');
      expect(rec.systemPromptFileMode).toBe('600');
    } finally {
      await b.close();
    }
  });
});
