// Which error wire shape a path speaks (SPEC.md §7): compatible-format routes get §7.1, native-format routes
// §7.2, everything else (health, metrics, unknown roots) the general §7.3 shape. Matched case-insensitively, like
// the router (@koa/router's default), so a path it serves always gets its own format's shape.

export type Family = 'compat' | 'native' | 'general';

const compatPaths = [/^\/compat(\/|$)/i, /^\/respapi(\/|$)/i, /^\/(api|cc|sdk)\/v1\/chat\/completions\/?$/i, /^\/sdk\/models\/?$/i];
const nativePaths = [/^\/v1(\/|$)/i, /^\/(api|cc)\/v1(\/|$)/i, /^\/api\/models\/?$/i];

export function familyOf(path: string): Family {
  if (compatPaths.some((re) => re.test(path))) return 'compat';
  if (nativePaths.some((re) => re.test(path))) return 'native';
  return 'general';
}
