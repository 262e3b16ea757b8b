// Which model a client asked for, and how to name the model that answered (docs/clients.md "Model ids").
// Pure: built from the profile and the user's alias setting, no I/O.
//
// A requested id is accepted when it is
//   1. a listed neutral id (SPEC.md §2.6, the profile's `models`), e.g. assistant-sonnet-4-20250514;
//   2. the provider's own id of a listed model (the SPEC's intro: provider ids stay accepted as input);
//   3. one of the CLI's own family aliases (profile.clientSupport.cliModelAliases, e.g. sonnet): the CLI picks that
//      family's current model itself, so tool mode passes the alias through; elsewhere it stands for the newest
//      listed model of that family (the largest `created`; the first listed on a tie);
//   4. a user alias from MODEL_ALIASES (`alias=model`, the target being any of 1 to 3), for editors that hard-code
//      a name such as gpt-4o. A user alias wins over the other meanings of the same word: the user chose it.
// What a mode does with any other name (docs/clients.md "Model ids"): tool mode answers 404 model_not_found naming
// what is available (SPEC.md §7.1, §7.2; the renderer picks the family's shape), since the CLI would only fail
// later; direct mode sends it to the provider with only the neutral prefix mapped (`providerModel`): the provider
// may serve models the list does not know yet, and answers its own 404 for the rest. Each request's name is
// resolved once, in its route. Answers name the served model by its neutral id (`publicName`).

import { ConfigError } from '../config.js';
import { ProxyError } from '../errors.js';
import { toNeutralModel, toProviderModel, type ModelInfo, type Profile } from '../profile.js';

export type ModelSource = 'listed' | 'provider-id' | 'cli-alias' | 'user-alias';

export interface ResolvedModel {
  /** What the client sent. */
  requested: string;
  /** The listed neutral id it stands for. */
  id: string;
  /** The provider's id of that model (what direct mode sends upstream). */
  providerId: string;
  /** What tool mode passes to the CLI: the provider id, or the CLI's own alias unchanged. */
  cliModel: string;
  source: ModelSource;
  /** The listed model's entry (created date, remark). */
  info: ModelInfo;
}

export interface ModelCatalog {
  /** The listed neutral ids, in the profile's order. */
  readonly ids: readonly string[];
  /** Alias -> the listed id it stands for: the CLI's aliases, then the user's (the user's win). */
  readonly aliases: ReadonlyMap<string, string>;
  /** Throws ProxyError model_not_found (404) for an id that is not available. */
  resolve(requested: string): ResolvedModel;
  /** Direct mode: the provider's id for a name (a known one resolved as by resolve(), any other prefix-mapped). */
  providerModel(requested: string): string;
  /**
   * The id to show clients for the model that served an answer: the neutral `assistant-` id of the provider's id.
   * A name that is neither a provider id nor a listed id (a CLI that echoes the alias it was given) is not a
   * model name: `fallback` (the resolved id) is shown instead, when given.
   */
  publicName(servedId: string, fallback?: string): string;
}

/** The newest listed model whose id has the family word as one of its dash-separated parts. */
function newestOfFamily(models: readonly ModelInfo[], family: string): ModelInfo | undefined {
  let best: ModelInfo | undefined;
  for (const m of models) {
    if (!m.id.split('-').includes(family)) continue;
    if (!best || m.created > best.created) best = m;
  }
  return best;
}

/** `MODEL_ALIASES` entries, alias=model (config.ts has checked the shape). */
function parseAliases(entries: readonly string[]): Array<[string, string]> {
  return entries.map((entry) => {
    const at = entry.indexOf('=');
    return [entry.slice(0, at), entry.slice(at + 1)];
  });
}

export function createModelCatalog(profile: Profile, userAliases: readonly string[] = []): ModelCatalog {
  const listed = new Map(profile.models.map((m) => [m.id, m]));
  const cliAliases = new Map<string, ModelInfo>();
  for (const alias of profile.clientSupport.cliModelAliases) {
    const target = newestOfFamily(profile.models, alias);
    if (target) cliAliases.set(alias, target);
  }

  /** Meanings 1 to 3; undefined when the id is none of them. */
  function builtIn(requested: string): Omit<ResolvedModel, 'requested'> | undefined {
    const own = listed.get(requested);
    if (own) return { id: own.id, providerId: toProviderModel(profile, own.id), cliModel: toProviderModel(profile, own.id), source: 'listed', info: own };
    const neutral = toNeutralModel(profile, requested);
    const byProvider = neutral !== requested ? listed.get(neutral) : undefined;
    if (byProvider) return { id: byProvider.id, providerId: requested, cliModel: requested, source: 'provider-id', info: byProvider };
    const family = cliAliases.get(requested);
    if (family) return { id: family.id, providerId: toProviderModel(profile, family.id), cliModel: requested, source: 'cli-alias', info: family };
    return undefined;
  }

  const user = new Map<string, Omit<ResolvedModel, 'requested'>>();
  for (const [alias, target] of parseAliases(userAliases)) {
    const meant = builtIn(target);
    if (!meant) {
      throw new ConfigError(
        `Invalid setting MODEL_ALIASES: ${alias}=${target} names an unknown model; use one of ${[...listed.keys(), ...cliAliases.keys()].join(', ')}`,
        'modelAliases',
      );
    }
    user.set(alias, { ...meant, source: 'user-alias' });
  }

  const aliases = new Map<string, string>([...[...cliAliases].map(([a, m]) => [a, m.id] as const), ...[...user].map(([a, m]) => [a, m.id] as const)]);
  const ids = [...listed.keys()];

  return {
    ids,
    aliases,
    resolve(requested) {
      const meant = user.get(requested) ?? builtIn(requested);
      if (meant) return { requested, ...meant };
      const aliasText = aliases.size > 0 ? `; aliases: ${[...aliases.keys()].join(', ')}` : '';
      throw new ProxyError('model_not_found', `The model '${requested}' is not available. Available models: ${ids.join(', ')}${aliasText}`, {
        field: 'model',
        issue: 'is not an available model',
      });
    },
    providerModel(requested) {
      return (user.get(requested) ?? builtIn(requested))?.providerId ?? toProviderModel(profile, requested);
    },
    publicName(servedId, fallback) {
      const neutral = toNeutralModel(profile, servedId);
      if (neutral !== servedId || listed.has(servedId) || fallback === undefined) return neutral;
      return fallback;
    },
  };
}
