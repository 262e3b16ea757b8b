// How the provider bills a subscription's requests, as public reports of 2026 describe it (docs/usage.md "Lanes"):
// the unified-limit headers with the overage (extra usage) state on every answer, and the two billing refusals,
// HTTP 400 invalid_request_error in the provider's own words. Pure functions of the knobs and the request.

import type { RecordedRequest, SimulatorKnobs } from './types.js';

const prefix = 'anthropic-ratelimit-unified';

export const billingRefusalText = {
  extra_usage_off:
    'Third-party apps now draw from your extra usage, not your plan limits. Extra usage is turned off for this account; turn it on to keep using this app.',
  cli_only_credential:
    'This credential is only authorized for use with Claude Code and cannot be used for other API requests.',
} as const;

/** The overage headers of knobs.overage (none when unset). */
export function overageHeaders(knobs: SimulatorKnobs): Record<string, string> {
  const o = knobs.overage;
  if (!o) return {};
  const headers: Record<string, string> = {
    [`${prefix}-status`]: o.unifiedStatus ?? 'allowed',
    [`${prefix}-overage-status`]: o.status ?? (o.inUse ? 'allowed' : 'rejected'),
    [`${prefix}-overage-in-use`]: String(o.inUse),
  };
  if (o.inUse) headers[`${prefix}-representative-claim`] = 'overage';
  if (o.utilization !== undefined) headers[`${prefix}-overage-utilization`] = String(o.utilization);
  if (o.resetsAt !== undefined) headers[`${prefix}-overage-reset`] = String(o.resetsAt);
  if (o.disabledReason) headers[`${prefix}-overage-disabled-reason`] = o.disabledReason;
  return headers;
}

/**
 * The real CLI (2.1.330, seen through this simulator) opens its system prompt with a block of its own,
 * `x-anthropic-billing-header: cc_version=…; cc_entrypoint=…;`. A subscription (OAuth) request without it is
 * someone else's prompt; so is a tool named with a single-underscore `mcp_` prefix (the CLI names MCP tools
 * `mcp__server__tool`).
 */
function looksThirdParty(record: RecordedRequest, body: Record<string, unknown>): boolean {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ name?: unknown }>) : [];
  if (tools.some((t) => typeof t.name === 'string' && /^mcp_[^_]/.test(t.name))) return true;
  const oauth = /^Bearer\s+sk-ant-oat/i.test(record.headers.authorization ?? '');
  if (!oauth) return false;
  const system = Array.isArray(body.system) ? (body.system as Array<{ text?: unknown }>) : [];
  const first = typeof body.system === 'string' ? body.system : system[0]?.text;
  return !(typeof first === 'string' && first.startsWith('x-anthropic-billing-header:'));
}

/** The billing refusal due for this request, or undefined; counts `times` down like failWith. */
export function billingRefusalDue(
  knobs: SimulatorKnobs,
  record: RecordedRequest,
  body: Record<string, unknown>,
): string | undefined {
  const r = knobs.billingRefusal;
  if (!r) return undefined;
  if ((r.when ?? 'always') === 'third-party' && !looksThirdParty(record, body)) return undefined;
  if (r.times !== undefined) {
    if (r.times <= 0) {
      knobs.billingRefusal = undefined;
      return undefined;
    }
    r.times -= 1;
    if (r.times === 0) knobs.billingRefusal = undefined;
  }
  return billingRefusalText[r.reason];
}
