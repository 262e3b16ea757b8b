import { describe, expect, it } from 'vitest';
import { ProxyError } from '../errors.js';
import { createProfile } from '../profile.js';
import { conversationToPrompt, maxSystemPromptChars, nativeRequestToCliInput } from './native-request-to-cli-input.js';

const profile = createProfile();
const options = { profile, allowedTools: [], disallowedTools: [] };
const print = profile.cli.printArgs;

describe('nativeRequestToCliInput', () => {
  it('sends one user message verbatim with the model as the route resolved it', () => {
    const input = nativeRequestToCliInput(
      { model: 'claude-sonnet-4-20250514', max_tokens: 10, messages: [{ role: 'user', content: 'say hi' }] },
      options,
    );
    expect(input).toEqual({
      args: [...print, '--model', 'claude-sonnet-4-20250514'],
      stdin: '{"type":"user","message":{"role":"user","content":"say hi"}}\n',
      env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '10' },
    });
    expect(print).toEqual(expect.arrayContaining(['--input-format', 'stream-json']));
  });

  it('writes the prompt as one stream-json line, whatever characters it holds', () => {
    const text = 'line one\nline "two" \u2028 ☕ \\ </turn>';
    const input = nativeRequestToCliInput({ model: 'sonnet', max_tokens: 10, messages: [{ role: 'user', content: text }] }, options);
    expect(input.stdin.endsWith('\n')).toBe(true);
    expect(input.stdin.slice(0, -1)).not.toContain('\n');
    expect(JSON.parse(input.stdin)).toEqual({ type: 'user', message: { role: 'user', content: text } });
  });

  it("passes max_tokens in the CLI's output-limit variable named by the profile", () => {
    const custom = { ...options, profile: { ...profile, clientSupport: { ...profile.clientSupport, maxOutputTokensEnv: 'OUTPUT_LIMIT' } } };
    const input = nativeRequestToCliInput({ model: 'sonnet', max_tokens: 321, messages: [{ role: 'user', content: 'x' }] }, custom);
    expect(input.env).toEqual({ OUTPUT_LIMIT: '321' });
  });

  it('passes other model ids (CLI aliases) unchanged', () => {
    const input = nativeRequestToCliInput({ model: 'sonnet', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }, options);
    expect(input.args.slice(-2)).toEqual(['--model', 'sonnet']);
  });

  it('puts the system prompt (string or blocks) and the tool rules in flags', () => {
    const input = nativeRequestToCliInput(
      {
        model: 'm',
        max_tokens: 10,
        system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Be kind.' }],
        messages: [{ role: 'user', content: 'x' }],
      },
      { profile, allowedTools: ['Read', 'Bash(git log:*)'], disallowedTools: ['WebFetch'] },
    );
    expect(input.args).toEqual([
      ...print,
      '--model', 'm',
      '--system-prompt', 'Be brief.\n\nBe kind.',
      '--allowedTools', 'Read,Bash(git log:*)',
      '--disallowedTools', 'WebFetch',
    ]);
  });

  it('never adds a permission-bypass flag', () => {
    const input = nativeRequestToCliInput({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] }, options);
    expect(input.args.join(' ')).not.toMatch(/dangerously|bypass/i);
  });

  it('refuses images with a 400 that points to direct mode', () => {
    const call = () =>
      nativeRequestToCliInput(
        {
          model: 'm',
          max_tokens: 1,
          messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image', source: { type: 'url', url: 'https://x/y.png' } }] }],
        },
        options,
      );
    expect(call).toThrow(ProxyError);
    expect(call).toThrow(/\/api\/v1\/messages/);
    try {
      call();
    } catch (err) {
      expect((err as ProxyError).status).toBe(400);
      expect((err as ProxyError).field).toBe('messages.0.content.1');
    }
  });

  it('refuses a system prompt too long for a command-line argument', () => {
    const call = () =>
      nativeRequestToCliInput({ model: 'm', max_tokens: 1, system: 'x'.repeat(maxSystemPromptChars + 1), messages: [{ role: 'user', content: 'x' }] }, options);
    expect(call).toThrow(/system/);
  });
});

describe('conversationToPrompt', () => {
  it('encodes earlier turns as a transcript and the latest user turn last', () => {
    const prompt = conversationToPrompt([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello Ada!' }] },
      { role: 'user', content: 'What is my name?' },
    ]);
    expect(prompt).toBe(
      [
        'The conversation so far, oldest turn first:',
        '<turn role="user">\nMy name is Ada.\n</turn>',
        '<turn role="assistant">\nHello Ada!\n</turn>',
        'Reply as the assistant to the latest user turn:',
        '<turn role="user">\nWhat is my name?\n</turn>',
      ].join('\n\n'),
    );
  });

  it('asks to continue a final assistant turn (prefill)', () => {
    const prompt = conversationToPrompt([
      { role: 'user', content: 'Count to three.' },
      { role: 'assistant', content: 'One,' },
    ]);
    expect(prompt).toContain('Continue the assistant turn below');
    expect(prompt.endsWith('<turn role="assistant">\nOne,\n</turn>')).toBe(true);
  });

  it('escapes a closing turn tag inside a message', () => {
    const prompt = conversationToPrompt([
      { role: 'user', content: 'a </turn> b' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'c' },
    ]);
    expect(prompt).toContain('a <\\/turn> b');
    expect(prompt.match(/<\/turn>/g)).toHaveLength(3);
  });

  it('writes tool calls and results of earlier turns as text and leaves thinking out', () => {
    const prompt = conversationToPrompt([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'secret plan', signature: 's' },
          { type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'rain' }] },
    ]);
    expect(prompt).toContain('[tool call get_weather (id t1) with input {"city":"Oslo"}]');
    expect(prompt).toContain('[tool result for t1: rain]');
    expect(prompt).not.toContain('secret plan');
  });
});
