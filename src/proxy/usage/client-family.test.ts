import { describe, expect, it } from 'vitest';
import { clientFamily } from './client-family.js';

describe('clientFamily', () => {
  it.each([
    ['OpenAI/JS 5.10.1', 'openai-js'],
    ['OpenAI/Python 1.99.0', 'openai-python'],
    ['Anthropic/JS 0.60.0', 'anthropic-js'],
    ['Anthropic/Python 0.64.0', 'anthropic-python'],
    ['ai-sdk/openai-compatible/1.0.0 runtime/node.js/20', 'vercel-ai'],
    ['curl/8.5.0', 'curl'],
    ['python-httpx/0.27.0', 'python-httpx'],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'browser'],
    ['node', 'node'],
    ['MyTool/2.0 (+https://example.com)', 'mytool'],
    ['%%%', 'other'],
  ])('%s -> %s', (ua, family) => {
    expect(clientFamily(ua)).toBe(family);
  });

  it('is null without a user-agent, and tries extra patterns first', () => {
    expect(clientFamily(undefined)).toBeNull();
    expect(clientFamily('   ')).toBeNull();
    expect(clientFamily('acme-cli/2.1 (external, cli)', [[/^acme-cli\//, 'assistant-cli']])).toBe('assistant-cli');
  });

  it('cuts an unknown product token to 32 characters', () => {
    expect(clientFamily(`${'a'.repeat(100)}/1`)).toBe('a'.repeat(32));
  });
});
