// Which error wire shape a path speaks (SPEC.md §7): compatible-format routes get §7.1, native-format routes
// §7.2, everything else (health, metrics, unknown roots) the general §7.3 shape.

export type Family = 'compat' | 'native' | 'general';

const compatPaths = [/^\/compat(\/|$)/, /^\/respapi(\/|$)/, /^\/(api|cc|sdk)\/v1\/chat\/completions\/?$/, /^\/sdk\/models\/?$/];
const nativePaths = [/^\/v1(\/|$)/, /^\/(api|cc)\/v1(\/|$)/, /^\/api\/models\/?$/];

export function familyOf(path: string): Family {
  if (compatPaths.some((re) => re.test(path))) return 'compat';
  if (nativePaths.some((re) => re.test(path))) return 'native';
  return 'general';
}
