// The client family of a request from its user-agent, for the ledger's `client` column (docs/usage.md). Pure.
// Known families by pattern, first match wins; the list can be extended (the CLI's own user-agent prefix is a
// provider name, so it is passed in from the profile rather than written here). Anything else is the first
// product token, lower-cased and cut, so one odd client cannot fill the column with free text.

type FamilyPattern = readonly [RegExp, string];

const defaultFamilies: readonly FamilyPattern[] = [
  [/^OpenAI\/JS\b/i, 'openai-js'],
  [/^OpenAI\/Python\b/i, 'openai-python'],
  [/^Anthropic\/JS\b/i, 'anthropic-js'],
  [/^Anthropic\/Python\b/i, 'anthropic-python'],
  [/\bai-sdk\//i, 'vercel-ai'],
  [/\blangchain/i, 'langchain'],
  [/\blitellm\b/i, 'litellm'],
  [/\bcontinue\b/i, 'continue'],
  [/\bcline\b/i, 'cline'],
  [/\bzed\b/i, 'zed'],
  [/\baider\b/i, 'aider'],
  [/\bjetbrains\b/i, 'jetbrains'],
  [/^curl\//i, 'curl'],
  [/^Wget\//i, 'wget'],
  [/^python-httpx\//i, 'python-httpx'],
  [/^python-requests\//i, 'python-requests'],
  [/^aiohttp\//i, 'aiohttp'],
  [/^Go-http-client\//i, 'go'],
  [/^(node|undici|node-fetch)\b/i, 'node'],
  [/^Mozilla\//i, 'browser'],
];

/** `extra` patterns (e.g. the assistant CLI's user-agent from the profile) are tried first. */
export function clientFamily(userAgent: string | undefined, extra: readonly FamilyPattern[] = []): string | null {
  const ua = (userAgent ?? '').trim();
  if (!ua) return null;
  for (const [re, name] of extra) if (re.test(ua)) return name;
  for (const [re, name] of defaultFamilies) if (re.test(ua)) return name;
  const token = /^[A-Za-z][A-Za-z0-9._-]{0,31}/.exec(ua)?.[0];
  return token ? token.toLowerCase() : 'other';
}
