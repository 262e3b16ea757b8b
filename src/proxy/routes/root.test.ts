import { describe, expect, it } from 'vitest';
import { baseUrls, rootPage } from './root.js';

describe('GET / page', () => {
  it('says the proxy is running and lists the base URL of every mode that is on', () => {
    expect(rootPage('http://localhost:8000', ['tool', 'direct', 'respapi'], '1.2.3')).toBe(
      [
        'Assistant Proxy is running.',
        '',
        'native SDK (tool mode):   http://localhost:8000  (the SDK adds /v1)',
        'OpenAI SDK (tool mode):   http://localhost:8000/compat/v1',
        'native SDK, direct mode:  http://localhost:8000/api  (the SDK adds /v1)',
        'OpenAI SDK, direct mode:  http://localhost:8000/api/v1',
        'OpenAI SDK, response API: http://localhost:8000/respapi  (responses.create)',
        'health:                   http://localhost:8000/health/detailed',
        '',
        "Version 1.2.3. Any API key works (the proxy uses your CLI's login); see the README for client settings.",
        '',
      ].join('\n'),
    );
  });

  it('leaves out the modes that are off', () => {
    expect(baseUrls('http://127.0.0.1:9', ['direct']).map((u) => u.url)).toEqual([
      'http://127.0.0.1:9/api',
      'http://127.0.0.1:9/api/v1',
      'http://127.0.0.1:9/health/detailed',
    ]);
  });
});
