// The two answers any caller may have, a web page of another origin or a client without the access key
// (docs/security.md): the basic `GET /health` (SPEC.md §4 note 8: monitors and load balancers probe it) and
// `GET /` ("… is running", PEERS.md "First run"). Neither reveals anything nor does any work. Matched like the
// router matches (case-insensitive, one trailing slash). One function, so the access key and the cross-site guard
// cannot disagree, and so it can later read the route table's own classification.

export function isOpenRequest(method: string, path: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1).toLowerCase() : path.toLowerCase();
  return p === '/' || p === '/health';
}
