// Which model a client asked for, and how to name the model that answered (docs/clients.md "Model ids",
// docs/configuration.md "Models"). Pure: built from a list of models, the profile and the user's alias setting, no
// I/O. models/live-catalog.ts rebuilds one whenever the provider's own list has been read.
//
// A requested id is accepted when it is
//   1. a listed neutral id (the live list, else the cached one, else the profile's fallback `models`), e.g.
//      assistant-sonnet-4-6, or a fallback id the live list does not show (still accepted: a pinned client keeps
//      working, and the provider answers for a retired one);
//   2. the provider's own id of such a model (provider ids stay accepted as input);
//   3. a dated id's undated name (assistant-haiku-4-5 for assistant-haiku-4-5-20251001), as the provider accepts;
//   4. one of the CLI's own family aliases (profile.clientSupport.cliModelAliases, e.g. sonnet): the newest listed
//      model of that family (the largest `created`; the first listed on a tie);
//   5. a user alias from MODEL_ALIASES (`alias=model`, the target being any of 1 to 4, or any id with the neutral or
//      the provider's prefix: a model newer than the saved list), for editors that hard-code a name such as gpt-4o.
//      A user alias wins over the other meanings of the same word: the user chose it. Any other target is a
//      setting error naming the catalog.
// Whatever the name, tool mode passes the CLI the exact provider id it stands for (`cliModel`): a family alias given
// to the CLI lets the CLI pick its own model, which may not be the one the catalog names.
// What a mode does with any other name (docs/clients.md "Model ids"): tool mode answers 404 model_not_found naming
// what is available (the renderer picks the family's shape), since the CLI would only fail later; direct mode sends
// it to the provider with only the neutral prefix mapped (`providerModel`): the provider may serve models the list
// does not know yet, and answers its own 404 for the rest. Each request's name is resolved once, in its route.
// Answers name the served model by its neutral id (`publicName`).

import { ConfigError } from '../config.js';

import { ProxyError } from '../errors.js';

import { toNeutralModel, toProviderModel, type Profile } from '../profile.js';
import type { ModelInfo } from '../profile-models.js';

type ModelSource = 'listed' | 'provider-id' | 'undated' | 'cli-alias' | 'user-alias';

/** Where the listed models came from: the provider's list read now, the copy of it on disk, or the profile's. */
export type CatalogSource = 'live' | 'cached' | 'fallback';

export interface ResolvedModel {
  /** What the client sent. */
  requested: string;
  /** The listed neutral id it stands for. */
  id: string;
  /** The provider's id of that model (what direct mode sends upstream). */
  providerId: string;
  /** What tool mode passes to the CLI: always the exact provider id. */
  cliModel: string;
  source: ModelSource;
  /** The model's entry (created date, context length). */
  info: ModelInfo;
  /** Set for a deprecated model: one line naming the replacement (a Warning header and a log line). */
  deprecation?: string;
}

export interface ModelCatalog {
  /** The listed neutral ids, newest first. */
  readonly ids: readonly string[];
  /** The listed models, newest first: what every model list shows. */
  readonly models: readonly ModelInfo[];
  /** Alias -> the listed id it stands for: the CLI's aliases, then the user's (the user's win). */
  readonly aliases: ReadonlyMap<string, string>;
  /** The mid-priced default for snippets and docs: the newest of profile.clientSupport.defaultFamily. */
  readonly defaultModel: string;
  /** The smallest current model (diagnose's test request): the newest of profile.clientSupport.smallestFamily. */
  readonly smallestModel: string;
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

interface CatalogInput {
  /** The listed models (shown by every list); the profile's fallback when omitted. */
  listed?: readonly ModelInfo[];
  /** Says where `listed` came from, for the unknown-alias message. */
  describe?: string;
  /** An alias of an unknown model: a ConfigError (at start) or dropped with `onDropped` (a later refresh). */
  onUnknownAlias?: 'throw' | ((alias: string, target: string) => void);
  /** An alias of a model id (either prefix) the catalog does not list: taken as that id, and said here. */
  onUnlistedAlias?: (alias: string, target: string) => void;
}

/** The newest model whose id has the family word as one of its dash-separated parts. */
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

const datedSuffix = /-\d{8}$/;

/** Newest first; a tie keeps the list's own order. */
function newestFirst(models: readonly ModelInfo[]): ModelInfo[] {
  return models
    .map((m, i) => ({ m, i }))
    .sort((a, b) => b.m.created - a.m.created || a.i - b.i)
    .map(({ m }) => m);
}

export function createModelCatalog(
  profile: Profile,
  userAliases: readonly string[] = [],
  input: CatalogInput = {},
): ModelCatalog {
  const shown = newestFirst(input.listed ?? profile.models);
  const listed = new Map(shown.map((m) => [m.id, m]));
  // Accepted too: fallback models the live list does not show (a client pinned to one keeps working).
  const accepted = new Map(listed);
  for (const m of profile.models) if (!accepted.has(m.id)) accepted.set(m.id, m);
  // A dated id's undated name, unless a model of that very name exists; the newest dated one wins.
  const undated = new Map<string, ModelInfo>();
  for (const m of newestFirst([...accepted.values()])) {
    const bare = m.id.replace(datedSuffix, '');
    if (bare !== m.id && !accepted.has(bare) && !undated.has(bare)) undated.set(bare, m);
  }
  const cliAliases = new Map<string, ModelInfo>();
  for (const alias of profile.clientSupport.cliModelAliases) {
    const target = newestOfFamily(shown, alias);
    if (target) cliAliases.set(alias, target);
  }

  function deprecationOf(id: string): string | undefined {
    const d = profile.modelDeprecations[id];
    if (!d) return undefined;
    const when = d.endOfLife ? ` (end of life ${d.endOfLife})` : '';
    return `The model ${id} is deprecated${when}; use ${d.replacement} instead`;
  }

  function entry(
    info: ModelInfo,
    source: ModelSource,
    providerId = toProviderModel(profile, info.id),
  ): Omit<ResolvedModel, 'requested'> {
    const deprecation = deprecationOf(info.id);
    return { id: info.id, providerId, cliModel: providerId, source, info, ...(deprecation ? { deprecation } : {}) };
  }

  /** Meanings 1 to 4; undefined when the id is none of them. */
  function builtIn(requested: string): Omit<ResolvedModel, 'requested'> | undefined {
    const own = accepted.get(requested);
    if (own) return entry(own, 'listed');
    const neutral = toNeutralModel(profile, requested);
    const byProvider = neutral !== requested ? accepted.get(neutral) : undefined;
    if (byProvider) return entry(byProvider, 'provider-id', requested);
    const bare = undated.get(neutral);
    if (bare) return entry(bare, 'undated');
    const family = cliAliases.get(requested);
    if (family) return entry(family, 'cli-alias');
    return undefined;
  }

  const { neutral: neutralPrefix, provider: providerPrefix } = profile.modelIdPrefix;
  const user = new Map<string, Omit<ResolvedModel, 'requested'>>();
  for (const [alias, target] of parseAliases(userAliases)) {
    const meant = builtIn(target);
    if (!meant && (target.startsWith(neutralPrefix) || target.startsWith(providerPrefix))) {
      // A model id the catalog does not list yet (a model newer than the saved list, before the first read): taken
      // as that model, since the proxy can only read the list once it runs; the provider answers if it is wrong.
      input.onUnlistedAlias?.(alias, target);
      user.set(alias, {
        ...entry({ id: toNeutralModel(profile, target), created: 0 }, 'user-alias', toProviderModel(profile, target)),
      });
      continue;
    }
    if (!meant) {
      const onUnknown = input.onUnknownAlias ?? 'throw';
      if (onUnknown !== 'throw') {
        onUnknown(alias, target);
        continue;
      }
      throw new ConfigError(
        `Invalid setting MODEL_ALIASES: ${alias}=${target} names an unknown model (the model catalog is ${input.describe ?? 'the built-in fallback list'}); use one of ${[...listed.keys(), ...cliAliases.keys()].join(', ')} (docs/configuration.md "Models")`,
        'modelAliases',
      );
    }
    user.set(alias, { ...meant, source: 'user-alias' });
  }

  const aliases = new Map<string, string>([
    ...[...cliAliases].map(([a, m]) => [a, m.id] as const),
    ...[...user].map(([a, m]) => [a, m.id] as const),
  ]);
  const ids = [...listed.keys()];
  const { defaultFamily, smallestFamily } = profile.clientSupport;
  const current = shown.filter((m) => !profile.modelDeprecations[m.id]);

  return {
    ids,
    models: shown,
    aliases,
    defaultModel: (newestOfFamily(current, defaultFamily) ?? current[0] ?? shown[0])?.id ?? '',
    smallestModel:
      (newestOfFamily(current, smallestFamily) ?? current.find((m) => m.smallest) ?? current.at(-1) ?? shown.at(-1))
        ?.id ?? '',
    resolve(requested) {
      const meant = user.get(requested) ?? builtIn(requested);
      if (meant) return { requested, ...meant };
      const aliasText = aliases.size > 0 ? `; aliases: ${[...aliases.keys()].join(', ')}` : '';
      throw new ProxyError(
        'model_not_found',
        `The model '${requested}' is not available. Available models: ${ids.join(', ')}${aliasText}`,
        {
          field: 'model',
          issue: 'is not an available model',
        },
      );
    },
    providerModel(requested) {
      return (user.get(requested) ?? builtIn(requested))?.providerId ?? toProviderModel(profile, requested);
    },
    publicName(servedId, fallback) {
      const neutral = toNeutralModel(profile, servedId);
      if (neutral !== servedId || accepted.has(servedId) || fallback === undefined) return neutral;
      return fallback;
    },
  };
}
