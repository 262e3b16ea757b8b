// Diagnose's view of who pays (docs/usage.md "Lanes"): the provider's billing refusals the ledger recorded in the
// last day, each with what happened and what to do, and whether extra usage is billing requests now. Reads the
// ledger only; sends nothing.

import type { ModeName } from '../../shared/modes.js';
import { refusalExplanation } from '../usage/billing-lane.js';
import type { BillingRefusal, OverageState, RequestPage, RequestQuery } from '../usage/types.js';
import type { DiagnoseCheck } from './types.js';

export interface BillingReader {
  requests(query: RequestQuery): RequestPage | Promise<RequestPage>;
  overageStates?(): OverageState[];
}

const DAY_MS = 86_400_000;

export async function billingCheck(usage: BillingReader, now: number, mode: ModeName): Promise<DiagnoseCheck> {
  const start = Date.now();
  const page = await usage.requests({ limit: 1000 });
  const recent = page.rows.filter((r) => r.startedAt >= now - DAY_MS);
  const counts = new Map<BillingRefusal, { n: number; modes: Set<string> }>();
  for (const r of recent) {
    if (!r.refusal) continue;
    const c = counts.get(r.refusal) ?? { n: 0, modes: new Set<string>() };
    c.n++;
    if (r.mode) c.modes.add(r.mode);
    counts.set(r.refusal, c);
  }
  const extra = recent.filter((r) => r.billingLane === 'extra_usage').length;
  const inUse =
    usage
      .overageStates?.()
      .filter((o) => o.inUse === true)
      .map((o) => o.source) ?? [];
  const lanes = `${extra} of the last day's ${recent.length} requests were billed to extra usage${inUse.length > 0 ? `; extra usage is in use now (${inUse.join(', ')})` : ''}.`;
  const base = {
    id: 'billing',
    mode,
    title: 'No billing refusals from the provider in the last day',
    durationMs: Date.now() - start,
  };
  if (counts.size === 0) return { ...base, status: 'pass', detail: `None recorded. ${lanes}` };
  const detail = [...counts].map(([reason, c]) => `${c.n} × ${reason} (${[...c.modes].join(', ')})`).join('; ');
  return {
    ...base,
    status: 'fail',
    detail: `${detail}. ${lanes}`,
    remedy: [...counts.keys()].map((r) => refusalExplanation[r]).join(' '),
  };
}
