// Cross-site guard (docs/security.md "A web page in the user's browser"). A web page can make the browser send requests
// to the proxy without reading the answers: an <img>, a form, a beacon, a no-cors fetch. CORS stops the reading, not
// the sending, so before this guard such a request made the proxy call the provider with the user's login (and could
// force a token refresh), started CLI children, drew on the rate limit every local client shares, and wrote error rows
// into the usage ledger. The guard refuses it first, before the access key, the rate limiter, the body, any provider
// call or CLI start; it is counted in assistant_proxy_refused_requests_total and kept out of the ledger
// (state.offLedger). A page can send thousands: per Origin, one refusal a minute is logged at warn, the rest at
// debug (refusal-log.ts).
//
// Browsers mark every request they send (Fetch Metadata, `Sec-Fetch-Site`; `Origin` on every non-GET and on every CORS
// request). A request is refused when:
// - it carries an Origin that is neither the proxy's own (`http://` + its Host header) nor in CORS_ORIGINS (`null`
// included: sandboxed frames, file: pages, redirects), or
// - it carries no Origin and its Sec-Fetch-Site is anything but `same-origin` or `none` (a typed URL or a bookmark).
// `same-site` is refused too: http://localhost:3000 and http://127.0.0.1:3000 are same-site with the proxy (ports are
// not part of a site), yet they are other origins, any local dev server's page. Clients that are not browsers send
// neither header and pass untouched. So do basic `GET /health` and `GET /`, which reveal nothing and do no work
// (docs/interface.md "Health record": monitors probe /health).

import { ProxyError } from '../errors.js';
import type { ProxyMetrics } from '../metrics.js';
import { isOpenRoute } from '../route-table.js';
import { RefusalLog } from './refusal-log.js';
import type { ProxyMiddleware } from './types.js';

export type CrossSiteVerdict = 'allow' | 'foreign-origin' | 'cross-site';

interface BrowserMarks {
  origin: string;
  secFetchSite: string;
  host: string;
}

function normaliseOrigin(origin: string): string {
  return origin.trim().replace(/\/$/, '').toLowerCase();
}

/** Pure: whether a request with these headers may go on. `allowed` holds normalised CORS_ORIGINS. */
export function crossSiteVerdict(marks: BrowserMarks, allowed: ReadonlySet<string>): CrossSiteVerdict {
  const origin = normaliseOrigin(marks.origin);
  if (origin !== '') {
    if (origin === `http://${marks.host.trim().toLowerCase()}` || allowed.has(origin)) return 'allow';
    return 'foreign-origin';
  }
  const site = marks.secFetchSite.trim().toLowerCase();
  if (site === '' || site === 'same-origin' || site === 'none') return 'allow';
  return 'cross-site';
}

export function crossSiteGuard(
  corsOrigins: readonly string[],
  metrics: Pick<ProxyMetrics, 'refused'>,
  refusals: RefusalLog = new RefusalLog(),
): ProxyMiddleware {
  const allowed = new Set(corsOrigins.map(normaliseOrigin));
  return (ctx, next) => {
    const headers = ctx.req.headers;
    const origin = headers.origin;
    const site = headers['sec-fetch-site'];
    // Fast path: a client that is not a browser.
    if (origin === undefined && site === undefined) return next();
    const verdict = crossSiteVerdict(
      {
        origin: typeof origin === 'string' ? origin : '',
        secFetchSite: typeof site === 'string' ? site : '',
        host: ctx.get('host'),
      },
      allowed,
    );
    if (verdict === 'allow' || isOpenRoute(ctx.method, ctx.path)) return next();
    ctx.state.offLedger = true;
    metrics.refused(verdict);
    // The source is the page's origin; a request without one (an <img>, a no-cors GET) names no page.
    const shown = verdict === 'foreign-origin' ? normaliseOrigin(String(origin)).slice(0, 100) : '';
    ctx.state.refusal = refusals.note(verdict === 'foreign-origin' ? `origin ${shown}` : 'no origin, cross-site');
    throw new ProxyError(
      'permission',
      verdict === 'foreign-origin'
        ? `Requests from web pages are refused: origin ${shown} is not allowed (add it to CORS_ORIGINS to let that page use the proxy)`
        : 'Requests from web pages of another site are refused (Sec-Fetch-Site); a page that should use the proxy must be listed in CORS_ORIGINS',
      {
        field: verdict === 'foreign-origin' ? 'origin' : 'sec-fetch-site',
        issue: 'cross-site request from a web page',
      },
    );
  };
}
