// The zod schema of every setting, built from the declaration (table.ts), and the types that follow from it: a
// setting added to the table is in the schema, `Config` and `Settings` with no second list. The same schema
// validates the desktop app's stored settings (src/main/settings.ts).

import { z } from 'zod';
import { defaultProfile, type Profile } from '../profile.js';
import type { SettingDeclaration } from './declaration.js';
import { settingTable } from './table.js';

type Table = typeof settingTable;
type SettingKey = keyof Table;

/** Each declared type, or what its function returns for a profile. */
type Shape = { [K in SettingKey]: Table[K]['type'] extends (profile: Profile) => infer T ? T : Table[K]['type'] };

/** The declarations in the table's order, each with its key. */
export const settings = Object.entries(settingTable).map(([key, s]) => ({
  key: key as SettingKey,
  ...(s as SettingDeclaration),
}));
export type Setting = (typeof settings)[number];

/** The single source of truth for settings. Upstream addresses default to the provider profile's. */
export function configSchema(profile: Profile = defaultProfile) {
  const shape = Object.fromEntries(
    settings.map((s) => [s.key, typeof s.type === 'function' ? s.type(profile) : s.type]),
  ) as Shape;
  return z.object(shape);
}

type ParsedConfig = z.infer<ReturnType<typeof configSchema>>;
export type Config = Omit<ParsedConfig, 'cliWorkDir'> & { cliWorkDir: string };
export type Settings = Partial<Config>;

/** How a setting's value is written in the environment and on the command line. */
type Kind = 'string' | 'int' | 'bool' | 'list';

/** A setting's zod type without its default or optional wrapper: what it accepts. */
export function acceptedType(field: unknown): unknown {
  return field instanceof z.ZodDefault || field instanceof z.ZodOptional ? field.unwrap() : field;
}

let kinds: Record<SettingKey, Kind> | undefined;

/** A setting's kind, read from its zod type, so that the type alone decides how a string becomes its value. */
export function kindOf(key: SettingKey): Kind {
  if (!kinds) {
    const shape = configSchema().shape;
    kinds = {} as Record<SettingKey, Kind>;
    for (const s of settings) {
      const type = acceptedType(shape[s.key]);
      kinds[s.key] =
        type instanceof z.ZodNumber
          ? 'int'
          : type instanceof z.ZodBoolean
            ? 'bool'
            : type instanceof z.ZodArray
              ? 'list'
              : 'string';
    }
  }
  return kinds[key];
}
