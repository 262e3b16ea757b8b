import { describe, expect, it } from 'vitest';
import { crossSiteVerdict, type CrossSiteVerdict } from './cross-site-guard.js';
import { isOpenRoute } from '../route-table.js';

const allowed = new Set(['http://localhost:5173', 'chrome-extension://abcdefghijklmnop']);
const host = '127.0.0.1:8000';

describe('crossSiteVerdict', () => {
  const cases: Array<[string, string, string, CrossSiteVerdict]> = [
    // [origin, sec-fetch-site, host, verdict]
    ['', '', host, 'allow'], // not a browser
    ['', 'none', host, 'allow'], // typed URL, bookmark
    ['', 'same-origin', host, 'allow'],
    ['', 'same-site', host, 'cross-site'], // another port of the same host: another origin
    ['', 'cross-site', host, 'cross-site'], // <img> from any page
    ['', 'CROSS-SITE', host, 'cross-site'],
    ['', 'something-new', host, 'cross-site'],
    ['http://127.0.0.1:8000', 'same-origin', host, 'allow'], // the proxy's own origin
    ['HTTP://127.0.0.1:8000/', '', host, 'allow'],
    ['http://[::1]:8000', 'same-origin', '[::1]:8000', 'allow'],
    ['http://127.0.0.1:3000', 'same-site', host, 'foreign-origin'],
    ['http://localhost:8000', 'same-site', host, 'foreign-origin'], // same port, other host name: another origin
    ['https://127.0.0.1:8000', 'cross-site', host, 'foreign-origin'], // another scheme
    ['null', 'cross-site', host, 'foreign-origin'], // sandboxed frame, file: page
    ['https://evil.test', '', host, 'foreign-origin'],
    ['http://localhost:5173', 'same-site', host, 'allow'], // listed in CORS_ORIGINS
    ['http://LOCALHOST:5173/', 'cross-site', host, 'allow'],
    ['chrome-extension://abcdefghijklmnop', 'none', host, 'allow'],
  ];
  for (const [origin, site, h, verdict] of cases) {
    it(`Origin "${origin}", Sec-Fetch-Site "${site}", Host ${h}: ${verdict}`, () => {
      expect(crossSiteVerdict({ origin, secFetchSite: site, host: h }, allowed)).toBe(verdict);
    });
  }
});

describe('isOpenRequest', () => {
  it('opens only GET/HEAD of the basic health and the root page', () => {
    expect(isOpenRoute('GET', '/health')).toBe(true);
    expect(isOpenRoute('HEAD', '/Health/')).toBe(true);
    expect(isOpenRoute('GET', '/')).toBe(true);
    expect(isOpenRoute('POST', '/health')).toBe(false);
    expect(isOpenRoute('GET', '/health/detailed')).toBe(false);
    expect(isOpenRoute('GET', '/metrics')).toBe(false);
    expect(isOpenRoute('GET', '/v1/models')).toBe(false);
  });
});
