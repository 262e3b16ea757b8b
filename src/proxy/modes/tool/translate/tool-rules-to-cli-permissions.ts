// The owner's tool rules (CLI_ALLOWED_TOOLS, CLI_DISALLOWED_TOOLS, CLI_UNCONFINED_SHELL) -> what the CLI's built-in
// tools may do, as the CLI's own settings (docs/security.md "The CLI's own tools"). Pure; tested beside it.
//
// Why: a chat is text from whoever can reach the proxy, and text can carry an instruction. With `Read` allowed as a
// bare name, the CLI read its own credential file for such a chat and sent the tokens back in the answer; with
// `Write`, it wrote ~/.ssh/authorized_keys; with `Bash`, it ran commands as the owner. The working directory confined
// nothing. So, whenever a built-in tool is offered:
// - every file tool is refused the owner's secrets and start-up files (profile.cli.permissions.deniedPaths, the
//   credential files' folders, the response-API login, the proxy's data directory), by deny rules, which win over
//   every allow rule, the user's own included;
// - a bare file tool name is scoped to the working directory (`Read` -> `Read(./**)`); a rule the owner wrote with a
//   path of its own is kept as written (still under the deny rules);
// - the tools that run commands are dropped unless CLI_UNCONFINED_SHELL says the owner accepts the risk: a shell
//   reads any file as the owner whatever the file rules say;
// - anything no rule allows is refused, never asked about (the permission mode).
// The result goes into an owner-only settings file (never the command line, which every local user can read).

import type { Profile } from '../../../profile.js';

interface ToolRuleOptions {
  profile: Profile;
  allowedTools: string[];
  disallowedTools: string[];
  /** CLI_UNCONFINED_SHELL: the command-running tools may be offered. */
  unconfinedShell: boolean;
  /** Absolute paths of folders no file tool may touch: the data directory. */
  deniedDirs: string[];
  /** The CLI's working directory (absolute): a denied folder that holds it is denied all but it. */
  workDir: string;
  /** Absolute paths of single files no file tool may touch. */
  deniedFiles?: string[];
}

export interface CliPermissions {
  /** The built-in tools offered (`--tools`). */
  tools: string[];
  /** The CLI settings holding the rules (written to a file given with profile.cli.permissions.settingsFlag). */
  settings: { permissions: { allow: string[]; deny: string[]; defaultMode: string } };
  /** Rules of CLI_ALLOWED_TOOLS left out because they run commands and CLI_UNCONFINED_SHELL is off. */
  refused: string[];
}

/** What a denied folder that holds the working directory is denied (the desktop app's data directory holds its
 * settings, the usage database, the log, the owner's key and the CLI's input files beside the CLI's working directory). */
const besideWorkDir = [
  '*.*',
  'logs/**',
  'cli-prompts/**',
  'cli-mcp/**',
  'cli-transcripts/**',
  'owner-key',
  'Local Storage/**',
  'Session Storage/**',
  'Cookies*',
  'IndexedDB/**',
  'Preferences',
];

function toolOf(rule: string): string {
  return rule.replace(/\(.*$/s, '').trim();
}

/** A rule path for an absolute path: the CLI reads `//` as the file system's root (`/x` is the settings file's folder). */
export function absoluteRulePath(path: string): string {
  const p = path.replace(/\\/g, '/');
  if (/^[A-Za-z]:\//.test(p)) return `//${p}`;
  return `/${p.startsWith('/') ? p : `/${p}`}`;
}

export function toolRulesToCliPermissions(opts: ToolRuleOptions): CliPermissions {
  const perm = opts.profile.cli.permissions;
  const shell = new Set(perm.shellTools);
  const files = new Set(perm.fileTools);
  const refused: string[] = [];
  const allow: string[] = [];
  for (const raw of opts.allowedTools) {
    const rule = raw.trim();
    const tool = toolOf(rule);
    if (!tool) continue;
    if (shell.has(tool) && !opts.unconfinedShell) {
      refused.push(rule);
      continue;
    }
    allow.push(files.has(tool) && rule === tool ? `${tool}(./**)` : rule);
  }
  const tools = [...new Set(allow.map(toolOf))];
  const paths = [
    ...perm.deniedPaths,
    ...opts.deniedDirs.flatMap((d) => {
      const dir = absoluteRulePath(d).replace(/\/+$/, '');
      return absoluteRulePath(opts.workDir).startsWith(`${dir}/`)
        ? besideWorkDir.map((p) => `${dir}/${p}`)
        : [`${dir}/**`];
    }),
    ...(opts.deniedFiles ?? []).map(absoluteRulePath),
  ];
  const deny = [
    ...new Set([
      ...paths.flatMap((p) => [`${perm.readRule}(${p})`, `${perm.editRule}(${p})`]),
      ...opts.disallowedTools,
    ]),
  ];
  if (!opts.unconfinedShell) for (const t of perm.shellTools) if (!deny.includes(t)) deny.push(t);
  return { tools, settings: { permissions: { allow, deny, defaultMode: perm.defaultMode } }, refused };
}

/** Does CLI_ALLOWED_TOOLS offer a tool that reads or writes the owner's files (a file tool, or a shell when allowed)? */
export function offersFileTools(profile: Profile, allowedTools: string[], unconfinedShell: boolean): boolean {
  const perm = profile.cli.permissions;
  const touching = new Set([...perm.fileTools, ...(unconfinedShell ? perm.shellTools : [])]);
  return allowedTools.some((rule) => touching.has(toolOf(rule.trim())));
}
