// What a CLI process that offers the client's own tools has beside the process (docs/tool-mode.md "The client's own
// tools"): its per-conversation MCP server (client-tool-server.ts) and the owner-only config file that tells the CLI
// where it is and its secret (in the data directory, removed when the process exits, swept after a crash; the secret
// never goes in argv), the tool calls it waits for, and the usage earlier answers of the turn already reported.

import { rmSync } from 'node:fs';
import { ProxyError } from '../../../errors.js';
import type { NativeContentBlock, NativeRequest, NativeToolResultBlock, NativeUsage } from '../../../formats/native.js';
import type { Profile } from '../../../profile.js';
import type { CliInput } from '../translate/native-request-to-cli-input.js';
import {
  mcpConfigJson,
  toolResultToMcp,
  type ClientToolPlan,
  type McpCallResult,
} from '../translate/native-tools-to-mcp.js';
import { ClientToolServer } from './client-tool-server.js';
import { fileError, type PromptFiles } from './prompt-files.js';
import type { SpawnInput } from './spec.js';

export class ToolSession {
  /** Usage already reported by earlier answers of this turn (the `result` line counts the whole turn). */
  reported: NativeUsage | undefined;
  /** The tool_use ids the process waits for while it is parked. */
  waitingFor: string[] = [];

  constructor(
    readonly server: ClientToolServer,
    readonly plan: ClientToolPlan,
  ) {}
}

export interface ToolSessionHost {
  profile: Profile;
  dataDir: string;
  toolResultTimeoutMs: number;
  /** Owner-only files for secrets (MCP configs). */
  secretFiles: PromptFiles;
  admitSocket(): (() => void) | false;
}

/**
 * Starts the MCP server of a new tool conversation and writes its config; `start` then starts the process with the
 * spec given (the request's own with the server in place of the empty MCP config). Both are undone when the process
 * exits, or at once when the start fails.
 */
export async function withToolSession<P extends { readonly exited: Promise<void> }>(
  host: ToolSessionHost,
  input: CliInput,
  plan: ClientToolPlan,
  start: (spec: SpawnInput) => Promise<P>,
): Promise<{ proc: P; session: ToolSession }> {
  const t = host.profile.cli.clientTools;
  const iso = host.profile.cli.isolation;
  let server: ClientToolServer;
  try {
    server = await ClientToolServer.start({
      tools: plan.tools,
      secretHeader: t.secretHeader,
      toolUseIdMeta: t.toolUseIdMeta,
      admit: () => host.admitSocket(),
    });
  } catch (err) {
    // Out of descriptors or ports: the machine's limit, not the request's fault (a clear 503, never a crash).
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new ProxyError(
      'unavailable',
      `The client tools' server for the assistant CLI could not be started (${code}); retry shortly`,
      { retryAfter: 5 },
    );
  }
  let configFile: string | undefined;
  try {
    // The CLI's own per-call limit stays above ours, so the proxy's deadline decides (and says so).
    try {
      configFile = host.secretFiles.write(
        mcpConfigJson(t, server.url, server.secret, host.toolResultTimeoutMs + 60_000),
      );
    } catch (err) {
      throw fileError('the MCP config file', host.dataDir, err);
    }
    // Isolation gave the CLI an empty MCP config; this conversation's server takes its place (with CLI_USER_SETUP on,
    // it comes beside the user's own servers). Built-in tools are already off (`--tools ""`).
    const args = [...input.args];
    const at = args.indexOf(iso.mcpConfigFlag);
    if (at >= 0) args[at + 1] = configFile;
    else args.push(iso.mcpConfigFlag, configFile);
    // No client text on the command line, which every local user can read (docs/security.md): the rule allows the
    // whole per-conversation server by its fixed name rather than listing the client's tool names, and the
    // tool_choice instruction (it names a tool) goes into the system prompt file.
    args.push(host.profile.cli.allowedToolsFlag, `${t.toolPrefix}${t.serverName}`);
    const systemPrompt = plan.instruction ? `${input.systemPrompt}\n\n${plan.instruction}` : input.systemPrompt;
    const proc = await start({ ...input, args, systemPrompt });
    const file = configFile;
    void proc.exited.then(() => {
      void server.close();
      rmSync(file, { force: true });
    });
    return { proc, session: new ToolSession(server, plan) };
  } catch (err) {
    void server.close();
    if (configFile) rmSync(configFile, { force: true });
    throw err;
  }
}

/** The tool_result blocks of the request's last message when it is a user message, and its other blocks. */
export function lastToolResults(req: NativeRequest): {
  results: NativeToolResultBlock[];
  others: NativeContentBlock[];
  index: number;
} {
  const index = req.messages.length - 1;
  const last = req.messages[index];
  if (last?.role !== 'user' || typeof last.content === 'string') return { results: [], others: [], index };
  const results = last.content.filter((b): b is NativeToolResultBlock => b.type === 'tool_result');
  const others = last.content.filter((b) => b.type !== 'tool_result');
  return { results, others, index };
}

/**
 * The MCP result for every id the process waits for; a missing one is an error result saying so. A result the CLI
 * cannot take throws the client's 400 (and the process keeps waiting for a retry).
 */
export function answersFor(
  waitingFor: string[],
  { results, others, index }: ReturnType<typeof lastToolResults>,
): Array<[string, McpCallResult]> {
  const byId = new Map(results.map((r, j) => [r.tool_use_id, { block: r, j }]));
  const out: Array<[string, McpCallResult]> = waitingFor.map((id) => {
    const found = byId.get(id);
    if (!found)
      return [id, { content: [{ type: 'text', text: 'The client sent no result for this call.' }], isError: true }];
    return [id, toolResultToMcp(found.block, `messages.${index}.content.${found.j}`)];
  });
  // Text the client sent beside its results (some agents add notes to the same message) would otherwise be lost:
  // it goes with the last result.
  const extra = others.flatMap((b) =>
    b.type === 'text' && b.text !== '' ? [{ type: 'text' as const, text: b.text }] : [],
  );
  if (extra.length > 0 && out.length > 0) out[out.length - 1][1].content.push(...extra);
  return out;
}
