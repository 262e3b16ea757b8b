// A native request's own tools -> what the assistant CLI is given to offer them as MCP tools of the proxy's
// per-conversation server (docs/tool-mode.md "The client's own tools"). Pure; tested beside it.
//
// - Each client tool becomes an MCP tool of the same name, description and input schema; the CLI names it
//   `mcp__<server>__<name>` towards the provider, and `clientToolNames` maps that name back to the client's.
// - Names the provider cannot take once prefixed (too long, or characters outside its set) and duplicate names are a
//   400 naming the tool: the CLI would rename or drop them silently, and the client's call would never match.
// - tool_choice: `auto` is the default; `none` offers no tools at all (the request runs as a plain chat); `any` and a
//   named tool cannot be passed to the CLI, which has no flag for them: they become an instruction appended to the
//   system prompt, and a named tool is then the only tool offered. The model usually complies; it is not forced.
//   `disable_parallel_tool_use` has no CLI equivalent and is reported as ignored by the route.

import { invalidField } from '../../../errors.js';
import type { NativeRequest, NativeTool, NativeToolResultBlock } from '../../../formats/native.js';
import type { Profile } from '../../../profile.js';

export interface McpToolDefinition {
  name: string;
  description?: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

export interface ClientToolPlan {
  /** The MCP server's tool list. */
  tools: McpToolDefinition[];
  /** The CLI's name of each tool (mcp__<server>__<name>) -> the client's name. */
  clientToolNames: Map<string, string>;
  /** Text appended to the system prompt for tool_choice `any` or a named tool. */
  instruction?: string;
}

type ToolsProfile = Profile['cli']['clientTools'];

export function cliToolName(profile: ToolsProfile, name: string): string {
  return `${profile.toolPrefix}${profile.serverName}__${name}`;
}

function checkName(profile: ToolsProfile, tool: NativeTool, i: number, seen: Set<string>): void {
  const field = `tools.${i}.name`;
  if (!new RegExp(profile.toolNamePattern).test(tool.name)) {
    throw invalidField(
      field,
      'may hold only letters, digits, _ and - in tool mode',
      `Invalid request: ${field} "${tool.name.slice(0, 80)}": tool names may hold only letters, digits, _ and - in tool mode (the assistant CLI offers them to the provider under that rule); rename the tool, or use direct mode (/api/)`,
    );
  }
  const max = profile.maxToolNameChars - cliToolName(profile, '').length;
  if (tool.name.length > max) {
    throw invalidField(
      field,
      `must be at most ${max} characters in tool mode`,
      `Invalid request: ${field} "${tool.name.slice(0, 80)}" is ${tool.name.length} characters; tool mode takes at most ${max} (the assistant CLI adds the prefix "${cliToolName(profile, '')}" and the provider takes ${profile.maxToolNameChars}); shorten it, or use direct mode (/api/)`,
    );
  }
  if (seen.has(tool.name)) throw invalidField(field, `"${tool.name}" is defined twice`);
  seen.add(tool.name);
}

/** An input schema as MCP requires it: an object schema (a client's `{}` means "no parameters"). */
function inputSchemaOf(schema: Record<string, unknown>): McpToolDefinition['inputSchema'] {
  return { ...schema, type: 'object' };
}

/**
 * The tools to offer for this request, or undefined when none are (no tools, or tool_choice `none`). Throws a 400
 * for a name the CLI cannot offer, and for a named tool_choice that names no tool of the request.
 */
export function planClientTools(req: NativeRequest, profile: ToolsProfile): ClientToolPlan | undefined {
  const tools = req.tools ?? [];
  const choice = req.tool_choice;
  if (tools.length === 0 || choice?.type === 'none') return undefined;
  const seen = new Set<string>();
  tools.forEach((tool, i) => checkName(profile, tool, i, seen));
  let offered = tools;
  let instruction: string | undefined;
  if (choice?.type === 'tool') {
    offered = tools.filter((t) => t.name === choice.name);
    if (offered.length === 0)
      throw invalidField('tool_choice.name', `names no tool of the request ("${choice.name.slice(0, 80)}")`);
    instruction = `Answer this turn by calling the tool ${cliToolName(profile, choice.name)}.`;
  } else if (choice?.type === 'any') {
    instruction = 'Answer this turn by calling one or more of the available tools, not with text alone.';
  }
  const clientToolNames = new Map(offered.map((t) => [cliToolName(profile, t.name), t.name]));
  return {
    tools: offered.map((t) => ({
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      inputSchema: inputSchemaOf(t.input_schema),
    })),
    clientToolNames,
    ...(instruction ? { instruction } : {}),
  };
}

/** The MCP config the CLI reads (--mcp-config): one HTTP server on loopback, the secret in a header. */
export function mcpConfigJson(profile: ToolsProfile, url: string, secret: string, callTimeoutMs: number): string {
  return JSON.stringify({
    mcpServers: {
      [profile.serverName]: {
        type: 'http',
        url,
        headers: { [profile.secretHeader]: `Bearer ${secret}` },
        // The CLI's own per-call limit; ours (CLI_TOOL_RESULT_TIMEOUT_MS) must end the wait first.
        timeout: callTimeoutMs,
      },
    },
  });
}

/** An MCP tools/call result (the parts of the MCP schema this proxy produces). */
export interface McpCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;
  isError?: boolean;
}

/**
 * A client's tool_result block -> the waiting MCP call's result: text kept, the error flag kept, base64 images as MCP
 * images (the CLI passes them on to the provider). An image given by URL cannot be carried by MCP: a 400.
 */
export function toolResultToMcp(block: NativeToolResultBlock, field: string): McpCallResult {
  const content: McpCallResult['content'] = [];
  if (typeof block.content === 'string') {
    if (block.content !== '') content.push({ type: 'text', text: block.content });
  } else {
    (block.content ?? []).forEach((part, j) => {
      if (part.type === 'text') content.push({ type: 'text', text: part.text });
      else if (part.source.type === 'base64')
        content.push({ type: 'image', data: part.source.data, mimeType: part.source.media_type });
      else
        throw invalidField(
          `${field}.content.${j}`,
          'an image in a tool result must be base64 data in tool mode (an image URL cannot be passed to the assistant CLI)',
        );
    });
  }
  return { content, ...(block.is_error ? { isError: true } : {}) };
}

/** A tool type the provider runs itself (web search, code execution...): anything but a client-defined tool. */
export function providerRunToolIndex(
  tools: unknown,
  clientTypes: readonly string[],
): { index: number; type: string } | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (let index = 0; index < tools.length; index++) {
    const type = (tools[index] as { type?: unknown } | null)?.type;
    if (type !== undefined && type !== null && !clientTypes.includes(String(type)))
      return { index, type: String(type) };
  }
  return undefined;
}
