import { describe, expect, it } from 'vitest';
import { isCredentialHeader, redactHeaders, redactSecrets, rememberSecret } from './redact.js';

// Shapes of real credentials (made-up values of the right form). Built by concatenation so that secret scanners
// reading this repository do not flag the file.
const a48 = 'T3BlbkFJ' + 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0';
const secrets: Record<string, string> = {
  'classic sk- key, no second dash': 'sk-' + a48,
  'sk-proj- key': 'sk-proj-' + a48,
  'provider key with a second dash': 'sk-ant-api03-' + a48 + '-AAAA',
  'provider OAuth token': 'sk-ant-oat01-' + a48,
  'GitHub personal token': 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  'GitHub OAuth token': 'gho_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  'GitHub server token': 'ghs_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  'GitHub fine-grained token': 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ',
  'AWS access key id': 'AKIA' + 'IOSFODNN7EXAMPLE',
  'Google API key': 'AIza' + 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
  'Slack bot token': 'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  JWT: 'eyJhbGciOiJIUzI1NiJ9' + '.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'Stripe live key': 'sk_live_' + '51H8a1b2c3d4e5f6g7h8i9j0',
};

describe('redactSecrets', () => {
  for (const [name, secret] of Object.entries(secrets)) {
    it(`removes a ${name} from free text and from JSON`, () => {
      const text = `key is ${secret}, bye`;
      expect(redactSecrets(text)).toBe('key is [redacted], bye');
      const json = JSON.stringify({ messages: [{ role: 'user', content: `use ${secret}` }] });
      expect(redactSecrets(json)).not.toContain(secret.slice(4, 20));
    });
  }

  it('removes credentials after an auth scheme and in credential-named fields, keeping ordinary fields', () => {
    expect(redactSecrets('Authorization: Bearer abcdefgh12345678')).not.toContain('abcdefgh12345678');
    expect(redactSecrets('Basic dXNlcjpwYXNzd29yZA==')).toBe('[redacted]');
    const body = JSON.stringify({
      api_key: 'plainvalue123',
      password: 'pw-hunter',
      max_tokens: 100,
      model: 'assistant-x',
    });
    const out = redactSecrets(body);
    expect(out).not.toContain('plainvalue123');
    expect(out).not.toContain('pw-hunter');
    expect(out).toContain('"max_tokens":100');
    expect(out).toContain('assistant-x');
    expect(redactSecrets('x-api-key: somekeyvalue12 and api-key=otherkey99')).not.toMatch(/somekeyvalue12|otherkey99/);
    expect(redactSecrets('https://user:s3cretpass@example.test/x')).toBe('https://user:[redacted]@example.test/x');
  });

  it('leaves ordinary text alone', () => {
    const text =
      'scikit-learn and task-runner use disk-space; max_tokens=100 model assistant-sonnet-4-20250514; the token endpoint is unreachable; basic authentication';
    expect(redactSecrets(text)).toBe(text);
  });

  it('removes a registered literal secret whatever it looks like', () => {
    const key = 'plain words as a key 0123';
    expect(redactSecrets(`got ${key}!`)).toContain(key);
    rememberSecret(key);
    expect(redactSecrets(`got ${key}!`)).toBe('got [redacted]!');
    expect(redactSecrets(JSON.stringify({ k: key }))).not.toContain(key);
  });
});

describe('credential headers', () => {
  it('recognises the common names and any name that says it carries a credential', () => {
    for (const h of [
      'Authorization',
      'proxy-authorization',
      'x-api-key',
      'api-key',
      'X-Goog-Api-Key',
      'x-proxy-access-key',
      'cookie',
      'set-cookie',
      'x-auth-token',
      'anthropic-api-key',
      'x-session-token',
      'private-token',
    ]) {
      expect(isCredentialHeader(h), h).toBe(true);
    }
    for (const h of ['content-type', 'x-request-id', 'user-agent', 'anthropic-beta', 'accept', 'keep-alive']) {
      expect(isCredentialHeader(h), h).toBe(false);
    }
  });

  it('replaces credential headers whole and scans the rest', () => {
    const out = redactHeaders({
      'api-key': 'anything-at-all',
      'x-note': `see ${secrets['AWS access key id']}`,
      accept: 'application/json',
      'x-list': ['a', 'b'],
    });
    expect(out).toEqual({
      'api-key': '[redacted]',
      'x-note': 'see [redacted]',
      accept: 'application/json',
      'x-list': 'a, b',
    });
  });
});
