// Client bodies pass through narrow zod schemas (docs/principles.md "Validated in, typed out"); a failure becomes one
// 400 that names the field and says what is wrong with it (docs/interface.md "Native errors" details.field /
// details.issue, "Compatible errors" param). The route family decides the wire shape later (http/errors.ts), so this
// helper does not need to know it.

import { z } from 'zod';
import { invalidField } from '../errors.js';

/** A number in [lo, hi] whose error text names the range, "must be between 0 and 1" (docs/interface.md "Limits"). */
export function between(lo: number, hi: number): z.ZodNumber {
  const issue = `must be between ${lo} and ${hi}`;
  return z
    .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') })
    .min(lo, issue)
    .max(hi, issue);
}

/** A positive integer, e.g. max_tokens. */
export function positiveInt(): z.ZodNumber {
  return z.number().int('must be an integer').gt(0, 'must be a positive integer');
}

/** Dotted path of a zod issue: ['messages', 0, 'role'] -> "messages.0.role"; the whole body -> "body". */
export function fieldOfPath(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'body' : path.map(String).join('.');
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

/** A short issue text: our own messages when a schema set one, otherwise one derived from the issue code. */
export function issueText(issue: z.core.$ZodIssue): string {
  const own = !issue.message.startsWith('Invalid') && !issue.message.startsWith('Too ');
  if (own) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      // zod leaves `input` out of issues; its message says what it received.
      return /received undefined$/.test(issue.message) ? 'is required' : `must be ${article(issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      if ('options' in issue && Array.isArray(issue.options)) {
        return `must be one of ${issue.options.map((v) => JSON.stringify(v)).join(', ')}`;
      }
      return 'has an unsupported shape';
    case 'too_small':
      return issue.origin === 'array' || issue.origin === 'string'
        ? `must have at least ${String(issue.minimum)} ${issue.origin === 'array' ? 'items' : 'characters'}`
        : `must be at least ${String(issue.minimum)}`;
    case 'too_big':
      return `must be at most ${String(issue.maximum)}`;
    default:
      return issue.message;
  }
}

/** Parses a client body or throws the 400 ProxyError for its first issue (errors.ts invalidField). */
export function validate<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  throw invalidField(fieldOfPath(first.path), issueText(first));
}
