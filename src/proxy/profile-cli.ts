// The provider's CLI as the profile knows it (part of profile.ts, kept apart for its length, like profile-models.ts;
// overridden the same way, through ASSISTANT_PROFILE_FILE's `cli` object): its names and install places, its
// arguments and flags, its stream's event names, and the hints the proxy shows about it.

export interface CliProfile {
  /** Executable names searched on PATH when ASSISTANT_CLI_PATH is not set. */
  executableNames: string[];
  /** Well-known install locations searched after PATH (relative to home when not absolute). */
  extraSearchPaths: string[];
  versionArgs: string[];
  authStatusArgs: string[];
  /** Print mode with stream-json output and partial messages (token streaming). */
  printArgs: string[];
  modelFlag: string;
  systemPromptFlag: string;
  /** The system prompt as a file (owner-only, in the data directory): never an argument other users can read. */
  systemPromptFileFlag: string;
  /**
   * A fresh process is started on a session transcript of the conversation's earlier turns (an owner-only file in
   * the data directory, docs/tool-mode.md "A fresh start"); "" gives it the history as text in one message instead.
   */
  resumeFlag: string;
  /**
   * A fresh start's transcript holds what the CLI announces on a process's first prompt, learnt from one run of the
   * CLI with its session written under this id in a throwaway HOME (modes/tool/engine/announcements.ts); the variables
   * that would move its files elsewhere than that HOME are left out of its environment.
   */
  sessionIdFlag: string;
  homeOverrideEnvs: string[];
  /** Built-in tools offered to the model: "" for none (docs/tool-mode.md "Lean by default"). */
  toolsFlag: string;
  allowedToolsFlag: string;
  disallowedToolsFlag: string;
  /**
   * What the CLI's built-in tools may touch when CLI_ALLOWED_TOOLS offers some (docs/security.md "The CLI's own
   * tools"): the rules go into a settings file given with `settingsFlag` (owner-only, in the data directory), never
   * on the command line.
   */
  permissions: {
    /** Loads a settings file on top of the sources chosen (it applies even with CLI_USER_SETUP). */
    settingsFlag: string;
    /** Confines the file tools to the working directory and drops the command-running tools not named in --tools. */
    restrictedFlag: string;
    /** The permission mode in the settings file: anything no rule allows is refused, never asked about. */
    defaultMode: string;
    /** Built-in tools that read or change files: a bare name in CLI_ALLOWED_TOOLS is scoped to the working directory. */
    fileTools: string[];
    /** The tool names of the two rule kinds: a read rule covers every reading tool, an edit rule every writing one. */
    readRule: string;
    editRule: string;
    /** Tools that run commands as the owner, outside every file rule: offered only with CLI_UNCONFINED_SHELL. */
    shellTools: string[];
    /** Rule paths (`~/` is the home directory) refused to every file tool, whatever else is allowed: the CLI's login
     * and settings, keys, shell start-up files and autostart folders. The credential files' folders, the proxy's
     * data directory and the response-API login are added as absolute paths. */
    deniedPaths: string[];
  };
  /** The client's own tools offered to the CLI as MCP tools (docs/tool-mode.md "The client's own tools"). */
  clientTools: {
    /** Text added after the system prompt (the tool_choice instruction). */
    appendSystemPromptFlag: string;
    /** The name of the per-conversation server; the CLI calls its tools mcp__<server>__<tool>. */
    serverName: string;
    /** The prefix of an MCP tool's name as the CLI gives it to the provider, before the server name. */
    toolPrefix: string;
    /** The longest tool name the provider takes, prefix included, and the characters it allows. */
    maxToolNameChars: number;
    toolNamePattern: string;
    /** The header the CLI sends with every MCP request (the per-conversation secret, as a bearer token). */
    secretHeader: string;
    /** The field of an MCP tools/call request's _meta that holds the provider's tool_use id. */
    toolUseIdMeta: string;
  };
  /** Isolation from the user's own CLI set-up (docs/tool-mode.md "Isolation"), each left out with CLI_USER_SETUP. */
  isolation: {
    /** Which settings sources to load; given "" so none (hooks, memory files, user MCP servers, plugins) is. */
    settingSourcesFlag: string;
    /** Only the MCP servers of the config given with mcpConfigFlag. */
    strictMcpConfigFlag: string;
    mcpConfigFlag: string;
    /** The MCP config a proxy child gets: no server. */
    emptyMcpConfig: string;
    /** No transcript written to the user's CLI history. */
    noSessionPersistenceFlag: string;
    /** Environment variable (set to 1) that turns off the CLI's telemetry and other side requests. */
    nonEssentialTrafficEnv: string;
    /** Environment variable (set to 1) that turns off the CLI's auto-memory (its instructions and its directory). */
    noAutoMemoryEnv: string;
  };
  /** Environment variable of the thinking budget; 0 turns thinking off (docs/tool-mode.md "Thinking"). */
  maxThinkingTokensEnv: string;
  /** The reasoning effort (low ... max): the CLI sends it as output_config.effort to models that take one. */
  effortFlag: string;
  /**
   * A JSON schema the answer must match (docs/tool-mode.md "Structured output"): the CLI offers the model a tool of
   * that schema, validates its call and prints the object in the result line (modes/tool/translate/cli-events.ts).
   * It reaches the CLI on stdin, as the first line a process reads: a control request of this subtype whose field
   * `schemaField` holds the schema (what the CLI's own SDK sends), never as a flag, which every local user could read
   * in /proc/<pid>/cmdline (docs/security.md).
   */
  schemaRequest: { type: string; subtype: string; schemaField: string };
  /** The name of that tool: its calls are the CLI's own, never shown to the client. */
  structuredOutputTool: string;
  /** Sent as the system prompt when a client sends none, instead of the CLI's 27.7 KB default (docs/tool-mode.md). */
  defaultSystemPrompt: string;
  /** Environment variable that bounds the CLI's own retries of failed provider calls. */
  maxRetriesEnv: string;
  /** Environment variables the CLI reads for its base URL and credentials; never set by us unless configured. */
  baseUrlEnv: string;
  /** Text the CLI prints when it has no login (the "nokey" recording). */
  notLoggedInPattern: string;
  /** The name of the CLI status in health details (docs/interface.md "Health errors": `claude-cli`). */
  healthDetailsKey: string;
  installHint: string;
  loginHint: string;
}

export const defaultCliProfile: CliProfile = {
  executableNames: ['claude'],
  extraSearchPaths: ['.local/bin/claude', '.claude/local/claude', '/usr/local/bin/claude', '/opt/homebrew/bin/claude'],
  versionArgs: ['--version'],
  authStatusArgs: ['auth', 'status'],
  printArgs: [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
  ],
  modelFlag: '--model',
  systemPromptFlag: '--system-prompt',
  systemPromptFileFlag: '--system-prompt-file',
  resumeFlag: '--resume',
  sessionIdFlag: '--session-id',
  homeOverrideEnvs: ['CLAUDE_CONFIG_DIR'],
  toolsFlag: '--tools',
  allowedToolsFlag: '--allowedTools',
  disallowedToolsFlag: '--disallowedTools',
  permissions: {
    settingsFlag: '--settings',
    restrictedFlag: '--restricted',
    defaultMode: 'dontAsk',
    fileTools: ['Read', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'NotebookRead', 'Glob', 'Grep', 'LS'],
    readRule: 'Read',
    editRule: 'Edit',
    shellTools: ['Bash', 'BashOutput', 'KillShell', 'KillBash', 'PowerShell', 'Monitor'],
    deniedPaths: [
      '~/.claude/**',
      '~/.claude.json',
      '~/.claude.json.backup',
      '~/.codex/**',
      '~/.ssh/**',
      '~/.gnupg/**',
      '~/.aws/**',
      '~/.netrc',
      '~/.git-credentials',
      '~/.config/gh/**',
      '~/.bashrc',
      '~/.bash_profile',
      '~/.bash_login',
      '~/.bash_logout',
      '~/.profile',
      '~/.zshrc',
      '~/.zshenv',
      '~/.zprofile',
      '~/.zlogin',
      '~/.config/fish/**',
      '~/.config/autostart/**',
      '~/.config/systemd/user/**',
      '~/.config/environment.d/**',
      '~/.xprofile',
      '~/.xsessionrc',
      '~/Library/LaunchAgents/**',
      '~/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/**',
    ],
  },
  clientTools: {
    appendSystemPromptFlag: '--append-system-prompt',
    serverName: 'c',
    toolPrefix: 'mcp__',
    maxToolNameChars: 64,
    toolNamePattern: '^[a-zA-Z0-9_-]+$',
    secretHeader: 'Authorization',
    toolUseIdMeta: 'claudecode/toolUseId',
  },
  isolation: {
    settingSourcesFlag: '--setting-sources',
    strictMcpConfigFlag: '--strict-mcp-config',
    mcpConfigFlag: '--mcp-config',
    emptyMcpConfig: '{"mcpServers":{}}',
    noSessionPersistenceFlag: '--no-session-persistence',
    nonEssentialTrafficEnv: 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC',
    noAutoMemoryEnv: 'CLAUDE_CODE_DISABLE_AUTO_MEMORY',
  },
  maxThinkingTokensEnv: 'MAX_THINKING_TOKENS',
  effortFlag: '--effort',
  schemaRequest: { type: 'control_request', subtype: 'initialize', schemaField: 'jsonSchema' },
  structuredOutputTool: 'StructuredOutput',
  defaultSystemPrompt: 'You are a helpful assistant.',
  maxRetriesEnv: 'CLAUDE_CODE_MAX_RETRIES',
  baseUrlEnv: 'ANTHROPIC_BASE_URL',
  notLoggedInPattern: 'Not logged in',
  healthDetailsKey: 'claude-cli',
  installHint: 'Install the assistant CLI (npm install -g @anthropic-ai/claude-code) or set ASSISTANT_CLI_PATH',
  loginHint: 'Log in with the CLI: run `claude auth login` (or `claude` then /login)',
};
