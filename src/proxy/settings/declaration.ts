// What one setting's declaration holds (table.ts declares each setting with it). Only this shape and the group
// headings live here, so that the table is data alone.

import type { z } from 'zod';
import type { Profile } from '../profile.js';

/** The groups `--help` lists settings under, in its order, with each heading. */
export const settingGroups = {
  server: 'Listening and access',
  limits: 'Limits and deadlines',
  cli: 'The assistant CLI (tool mode)',
  upstream: 'Upstream (direct and response-API modes)',
  data: 'Data, usage and models',
  ollama: 'The Ollama listener',
} as const;

export interface SettingDeclaration {
  env: string;
  flag?: `--${string}`;
  group: keyof typeof settingGroups;
  /** The zod type with its bounds and default; a function where the default is the provider profile's or the
   * machine's, read each time the schema is built. */
  type: z.ZodType | ((profile: Profile) => z.ZodType);
  /** One line for `--help`. */
  help: string;
  /** The docs' table's text, where it says more than `help`. */
  docs?: string;
  /** The default in words, where the value depends on the machine or on another setting (`--help`; the docs'
   * table quotes it as code). */
  shownDefault?: string;
  /** The docs' table's default cell, where it is neither `shownDefault` nor the value. */
  docsDefault?: string;
}
