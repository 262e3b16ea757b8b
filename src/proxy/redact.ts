// The one redaction module (docs/security.md "Secrets: one redaction module"): the logs (every line pino writes, and
// the window's log tap), error messages sent to clients, CLI output kept in logs, diagnose reports and the captured
// bodies and headers of CAPTURE_BODIES all pass through here, so what counts as a secret is decided once.
//
// Two kinds of secret are found:
// - by shape: provider keys of every form (`sk-` with or without a second dash, `sk_live_`), GitHub, AWS, Google, Slack
// and Stripe tokens, JWTs, bearer and basic credentials, and the values of credential-named fields and headers written
// as text (`"api_key": "..."`, `x-api-key: ...`);
// - by value: literals the proxy knows are secret (its own PROXY_ACCESS_KEY), whatever they look like. A key such as
// `hunter2hunter2hunter2` has no shape to find, so createProxy registers it here (rememberSecret). That list is
// process-wide on purpose: the sinks that must redact it (the logger, the usage ledger's capture store) are made by
// callers that never see the proxy's configuration, and redacting one more literal is always safe.

const REDACTED = '[redacted]';

/** Header names whose values are credentials, whatever their value looks like. */
const credentialHeaderNames = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'x-proxy-access-key',
  'cookie',
  'set-cookie',
  'x-auth-token',
  'x-access-token',
  'x-amz-security-token',
  'private-token',
  'x-csrf-token',
]);

// Any other header whose name says it carries a credential (`anthropic-api-key`, `x-session-token`, `x-secret`).
const credentialHeaderShape =
  /(?:^|-)(?:auth|authorization|token|api-?key|key|secret|password|passwd|cookie|session|credentials?|signature)$/i;

/** True when a header of this name carries a credential (its value is shown as "[redacted]", never scanned). */
export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return credentialHeaderNames.has(n) || credentialHeaderShape.test(n);
}

/** The names pino redacts by path under `req.headers` and `headers` (the log line's own objects). */
export const credentialHeaderList: readonly string[] = [...credentialHeaderNames];

// Field names that, in JSON or `name=value` text, hold a credential. Matched whole, so `max_tokens` is not one.
const secretField = String.raw`(?:api[_-]?key|x-api-key|x-goog-api-key|access[_-]?key|secret[_-]?key|secret[_-]?access[_-]?key|aws[_-]?secret[_-]?access[_-]?key|client[_-]?secret|password|passwd|authorization|proxy-authorization|access[_-]?token|refresh[_-]?token|id[_-]?token|session[_-]?token|auth[_-]?token|x-proxy-access-key|private[_-]?key|token)`;

// Token shapes, each starting with a literal prefix and without lookbehind: every request writes a log line, and a
// variable-length lookbehind is tried at every position of it.
const tokenShapes: string[] = [
  // Provider keys: sk-<48 alnum> (classic), sk-proj-..., sk-ant-api03-..., sk-ant-oat01-... (OAuth tokens).
  String.raw`\bsk-[A-Za-z0-9][A-Za-z0-9_-]{15,}`,
  // Stripe-style live/test keys.
  String.raw`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}`,
  // GitHub: personal, OAuth, server, user-to-server, refresh tokens, fine-grained PATs.
  String.raw`\bgh[pousr]_[A-Za-z0-9]{20,}`,
  String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`,
  // AWS access key ids (long-term and temporary).
  String.raw`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b`,
  // Google API keys and OAuth access tokens.
  String.raw`\bAIza[0-9A-Za-z_-]{30,}`,
  String.raw`\bya29\.[0-9A-Za-z_-]{10,}`,
  // Slack bot, user, app, refresh tokens.
  String.raw`\bxox[abposre]-[A-Za-z0-9-]{10,}`,
  // JWTs (header.payload.signature, base64url).
  String.raw`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`,
  // Credentials after an auth scheme, wherever they appear. Basic's value must look encoded (a digit, +, / or =),
  // so that prose such as "basic authentication" is left alone.
  String.raw`\b(?:[Bb]earer|BEARER)\s+[A-Za-z0-9._~+/=-]{8,}`,
  String.raw`\b[Bb]asic\s+(?=[A-Za-z0-9+/]*[0-9+/=])[A-Za-z0-9+/]{8,}={0,2}`,
];
// Case-sensitive on purpose (the shapes are), which is about twice as fast as the `i` flag.
const tokenRegex = new RegExp(tokenShapes.join('|'), 'g');
// The prefixes of every token shape and credential field name alone: one cheap test lets most lines (which hold
// neither) skip the full passes. Kept in step with tokenShapes and secretField.
const anyPrefix =
  /\b(?:sk[-_]|[rp]k_|gh[pousr]_|github_pat_|A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|Iza)|ya29\.|xox[abposre]-|eyJ|[Bb]earer|BEARER|[Bb]asic|[Aa][Pp][Ii][_-]?[Kk]|[Xx]-(?:[Aa][Pp][Ii]|[Gg]oog|[Pp]roxy-[Aa]ccess)|[Aa][Cc][Cc][Ee][Ss][Ss][_-]?[KkTt]|[Ss]ecret|SECRET|[Aa][Ww][Ss][_-]?[Ss]|[Cc]lient[_-]?[Ss]|CLIENT[_-]?S|[Pp]assw|PASSW|[Aa]uth|AUTH|[Rr]efresh[_-]?[Tt]|REFRESH[_-]?T|[Ii][Dd][_-]?[Tt]oken|[Ss]ession[_-]?[Tt]|SESSION[_-]?T|[Pp]rivate[_-]?[Kk]|PRIVATE[_-]?K|[Tt]oken|TOKEN)/;

// Values found by what precedes them; the prefix is kept (`$1`).
// A credential-named JSON field's string value: "api_key": "...", "authorization":"...".
const jsonField = new RegExp(String.raw`("${secretField}"\s*:\s*")(?:[^"\\]|\\.){1,4096}(?=")`, 'gi');
// A credential-named header or query/form field written as text: x-api-key: ..., api_key=...
const textField = new RegExp(
  String.raw`((?:^|[\s,;?&{(])${secretField}\s*[:=]\s*)(?!\[redacted\])[^\s,;&"'<>]{4,}`,
  'gi',
);
// Userinfo in a URL: scheme://user:password@host.
const urlPassword = /([a-z][a-z0-9+.-]*:\/\/[^\s/:@]{1,200}:)[^\s/@]{1,200}@/gi;

/** Literal secrets registered by the proxy (its access key); bounded, newest kept. */
const literals: string[] = [];
const MAX_LITERALS = 32;
let literalRegex: RegExp | undefined;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Registers a value that is secret whatever it looks like (the proxy's access key): from now on it is redacted
 * from every text this module sees, in this process. Values shorter than 8 characters are ignored (they would
 * redact ordinary words; config.ts requires 16 for the access key anyway).
 */
export function rememberSecret(value: string | undefined): void {
  if (!value || value.length < 8 || literals.includes(value)) return;
  literals.push(value);
  if (literals.length > MAX_LITERALS) literals.shift();
  // Longest first, so a key that contains another is replaced whole.
  literalRegex = new RegExp(
    [...literals]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegex)
      .join('|'),
    'g',
  );
}

/** Replaces anything that looks like a key or token, and every registered literal secret, in free text. */
export function redactSecrets(text: string): string {
  let out = text;
  if (literalRegex) out = out.replace(literalRegex, REDACTED);
  if (anyPrefix.test(out))
    out = out.replace(tokenRegex, REDACTED).replace(jsonField, `$1${REDACTED}`).replace(textField, `$1${REDACTED}`);
  if (out.includes('@')) out = out.replace(urlPassword, `$1${REDACTED}@`);
  return out;
}

/** Headers as text for a capture or report: credential headers replaced whole, the rest scanned. */
export function redactHeaders(headers: Record<string, string | string[] | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const n = name.toLowerCase();
    out[n] = isCredentialHeader(n) ? REDACTED : redactSecrets(Array.isArray(value) ? value.join(', ') : String(value));
  }
  return out;
}
