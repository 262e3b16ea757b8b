// Tool mode's effort level (docs/tool-mode.md "Thinking"): the CLI sends `--effort` as it is given, so a level the
// model does not take (`max` where it lacks it) becomes the nearest one it takes, named, instead of the provider's
// 400 through the CLI (docs/models.md). Direct mode fits the effort with the rest of the request
// (models/fit-to-model.ts); tool mode leaves everything else to the CLI, which fits it to the model itself.

import type { ClientNames } from '../../formats/format.js';
import type { NativeRequest } from '../../formats/native.js';
import { nearestEffort, type ModelFacts } from '../../models/fit-to-model.js';
import type { NativeEffort } from '../../profile-models.js';

/**
 * Sets `request.output_config.effort` in place to the nearest level the model takes, and names the change by the
 * client's own field (for X-Proxy-Ignored-Params) with the reason in words (for the log). A model the catalog does
 * not know, or one without effort levels, is left to the CLI.
 */
export function fitEffortLevel(
  request: NativeRequest,
  facts: ModelFacts,
  names: ClientNames,
): { ignored: string[]; warnings: string[] } {
  const wanted = request.output_config?.effort;
  const supported = facts.capabilities.efforts;
  if (wanted === undefined || !facts.known || supported.length === 0) return { ignored: [], warnings: [] };
  const level = nearestEffort(wanted, supported) as NativeEffort;
  if (level === wanted) return { ignored: [], warnings: [] };
  request.output_config = { ...request.output_config, effort: level };
  const name = names.thinking ?? 'effort';
  return {
    ignored: [name],
    warnings: [`${name}: ${wanted} became ${level}, the nearest level ${facts.id} takes (${supported.join(', ')})`],
  };
}
