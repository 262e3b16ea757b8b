// The Connect tab's model list as a pure function of the status: every id a client may put in its settings, the
// current ones first in the catalog's order, then the deprecated ones, each marked with what the provider says to
// use instead (docs/configuration.md "Models"). A deprecated id still answers (with a Warning header naming the
// replacement), so it is listed, but a user picking a model from the list should not pick it by accident.

import type { ControlStatus } from '../proxy/control-api.js';

/** 200000 -> "200K", 1000000 -> "1M". */
export function contextText(tokens: number): string {
  return tokens >= 1_000_000 ? `${+(tokens / 1_000_000).toFixed(1)}M` : `${Math.round(tokens / 1000)}K`;
}

/** What a model takes, in a few words: "128K out · adaptive thinking (low–max) · JSON schema". */
function takesText(d: NonNullable<ControlStatus['modelDetails']>[number]): string[] {
  const out: string[] = [];
  if (d.maxTokens) out.push(`${contextText(d.maxTokens)} out`);
  const c = d.capabilities;
  if (c) {
    const forms = c.thinking.includes('adaptive')
      ? c.thinking.includes('enabled')
        ? 'adaptive or budget thinking'
        : 'adaptive thinking'
      : c.thinking.length > 0
        ? 'budget thinking'
        : 'no thinking';
    const range = c.efforts.length > 0 ? ` (${c.efforts[0]}–${c.efforts.at(-1)})` : '';
    out.push(forms + range);
    if (c.structuredOutputs) out.push('JSON schema');
  }
  return out;
}

export interface ModelListItem {
  id: string;
  /** "200K context · 128K out · adaptive thinking (low–max) · JSON schema", as far as the catalog knows. */
  note?: string;
  /** A deprecated id: the words before its replacement ("deprecated (end of life 2026-06-15) → use "), and the
   * replacement's id (shown unbroken). */
  deprecated?: { said: string; use: string };
}

function noteOf(d: NonNullable<ControlStatus['modelDetails']>[number]): { note?: string } {
  const parts = [...(d.contextLength ? [`${contextText(d.contextLength)} context`] : []), ...takesText(d)];
  return parts.length > 0 ? { note: parts.join(' · ') } : {};
}

export function modelListItems(status: Pick<ControlStatus, 'models' | 'modelDetails'>): ModelListItem[] {
  const details = new Map((status.modelDetails ?? []).map((m) => [m.id, m]));
  const items = status.models.map((id): ModelListItem => {
    const d = details.get(id);
    const deprecated = d?.deprecated;
    return {
      id,
      ...(d ? noteOf(d) : {}),
      ...(deprecated
        ? {
            deprecated: {
              said: `deprecated${deprecated.endOfLife ? ` (end of life ${deprecated.endOfLife})` : ''} → use `,
              use: deprecated.replacement,
            },
          }
        : {}),
    };
  });
  return [...items.filter((i) => !i.deprecated), ...items.filter((i) => i.deprecated)];
}
