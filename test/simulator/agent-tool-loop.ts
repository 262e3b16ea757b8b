// A model that drives a coding agent's own tool loop, for the agents suite (test/agents). With the knob
// `agentToolLoop` set, a request that carries tools is answered as a model that reads a file would:
//   1. no read yet in the conversation: call the agent's read-file tool (found by name among the request's tools,
//      its path parameter found by schema) on `agentToolLoop.path`, or, for an agent with none (Codex), its shell
//      tool with `cat` on that path;
//   2. the read's tool_result is back: answer with text that quotes it, so the agent's final answer shows the file's
//      content. An agent whose loop only ends through a completion tool (Cline's `attempt_completion`) gets that
//      tool called with the same text instead, once.
// planReply asks this first; a request without tools (an agent's side request for a session title, say) gets the
// ordinary plan. The tool names may carry the CLI's MCP prefix (`mcp__<server>__<tool>`) when the agent runs
// through tool mode.
//
// Pure: a function of the request body and the knobs, like planReply.

import {
  countWords,
  requestTexts,
  splitJson,
  splitText,
  summaryResultsLabel,
  type PlannedBlock,
  type ReplyPlan,
} from './reply-plan.js';
import type { SimulatorKnobs } from './types.js';

interface Schema {
  type?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  required?: unknown;
}

interface ToolDef {
  name: string;
  input_schema?: Schema;
}

interface Block {
  type?: unknown;
  id?: unknown;
  name?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
  text?: unknown;
  input?: unknown;
}

/** The tool's own name, without the CLI's MCP prefix `mcp__<server>__`. */
export function bareToolName(name: string): string {
  const m = /^mcp__.+?__(.+)$/.exec(name);
  return m ? m[1] : name;
}

function normalise(name: string): string {
  return bareToolName(name)
    .toLowerCase()
    .replace(/[^a-z]/g, '');
}

const readNames = ['read', 'readfile', 'readfiles', 'view', 'readtextfile', 'fileread'];

/** The agent's tool that reads a file: a common name first, else a name with "read" and "file" (not a directory
 * listing or a many-file search), in both cases one whose schema takes a path. */
export function findReadTool(tools: ToolDef[]): ToolDef | undefined {
  for (const wanted of readNames) {
    const hit = tools.find((t) => normalise(t.name) === wanted && readInput(t, '/x') !== undefined);
    if (hit) return hit;
  }
  return tools.find(
    (t) =>
      /read/.test(normalise(t.name)) &&
      /file/.test(normalise(t.name)) &&
      !/many|multi|dir/.test(normalise(t.name)) &&
      readInput(t, '/x') !== undefined,
  );
}

/** The string property that names a file: path, file_path, filePath, absolute_path, target_file, uri... */
function pathKey(schema: Schema | undefined): string | undefined {
  const props = schema?.properties ?? {};
  const names = Object.keys(props).filter((k) => props[k]?.type === undefined || props[k]?.type === 'string');
  const order = [/^(file_?)?path$/i, /^(absolute|target|file)_?(path|file)$/i, /path/i, /file/i, /^uri$/i];
  for (const re of order) {
    const hit = names.find((n) => re.test(n));
    if (hit) return hit;
  }
  return undefined;
}

/** Arguments valid for the read tool's schema that name `path`: a path property (`{ filePath }`), an array of
 * paths (`{ paths: [...] }`) or an array of file entries (`{ files: [{ path }] }`, Cline's read_files). */
export function readInput(tool: ToolDef, path: string): Record<string, unknown> | undefined {
  const schema = tool.input_schema;
  const key = pathKey(schema);
  if (key) return { ...requiredDefaults(schema, key), [key]: path };
  for (const [name, prop] of Object.entries(schema?.properties ?? {})) {
    if (prop?.type !== 'array') continue;
    if (prop.items?.type === 'string' && /path|file/i.test(name))
      return { ...requiredDefaults(schema, name), [name]: [path] };
    const inner = prop.items?.type === 'object' ? pathKey(prop.items) : undefined;
    if (inner)
      return { ...requiredDefaults(schema, name), [name]: [{ ...requiredDefaults(prop.items, inner), [inner]: path }] };
  }
  return undefined;
}

const shellNames = ['execcommand', 'shell', 'shellcommand', 'bash', 'runshellcommand'];

/** An agent without a read-file tool (Codex) reads with its shell tool: `cat` on the path, as a model would. */
export function findShellTool(tools: ToolDef[]): ToolDef | undefined {
  return tools.find((t) => shellNames.includes(normalise(t.name)) && shellInput(t, '/x') !== undefined);
}

/** Arguments for a shell tool that print `path`: a command string (`{ cmd }`), or an argv array (`{ command }`). */
export function shellInput(tool: ToolDef, path: string): Record<string, unknown> | undefined {
  const schema = tool.input_schema;
  const props = schema?.properties ?? {};
  const key = ['cmd', 'command'].find((k) => props[k] !== undefined);
  if (!key) return undefined;
  const value = props[key].type === 'array' ? ['cat', path] : `cat '${path.replace(/'/g, `'\\''`)}'`;
  return { ...requiredDefaults(schema, key), [key]: value };
}

function completionTool(tools: ToolDef[]): { tool: ToolDef; param: string } | undefined {
  const tool = tools.find((t) => normalise(t.name) === 'attemptcompletion');
  const props = tool?.input_schema?.properties ?? {};
  const param =
    Object.keys(props).find((k) => k === 'result') ?? Object.keys(props).find((k) => props[k]?.type === 'string');
  return tool && param ? { tool, param } : undefined;
}

/** Values for the other required properties, by type, so the call is valid for the tool's schema. */
function requiredDefaults(schema: Schema | undefined, skip: string): Record<string, unknown> {
  const props = schema?.properties ?? {};
  const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
  const out: Record<string, unknown> = {};
  for (const key of required) {
    if (key === skip) continue;
    const type = props[key]?.type;
    out[key] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? false
          : type === 'array'
            ? []
            : type === 'object'
              ? {}
              : '';
  }
  return out;
}

function blocksOf(messages: unknown[], role: string): Block[] {
  const out: Block[] = [];
  for (const m of messages as Array<{ role?: unknown; content?: unknown }>) {
    if (m?.role === role && Array.isArray(m.content)) out.push(...(m.content as Block[]));
  }
  return out;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((b) => (typeof (b as Block)?.text === 'string' ? ((b as Block).text as string) : '')).join('');
  return '';
}

/** What the tools returned, as a summary of the simulator's own in the history says (reply-plan.ts summaryOf). */
function rememberedResult(messages: unknown[]): string | undefined {
  const texts = (messages as Array<{ role?: unknown; content?: unknown }>)
    .filter((m) => m?.role === 'user')
    .flatMap((m) => (typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content : []))
    .map((b) =>
      typeof b === 'string' ? b : typeof (b as Block)?.text === 'string' ? ((b as Block).text as string) : '',
    );
  for (const text of texts) {
    const at = text.indexOf(summaryResultsLabel);
    // The summary's list ends its text block (the proxy may close it with a tag of its own on the next line).
    if (at >= 0)
      return text
        .slice(at + summaryResultsLabel.length)
        .split('\n')[0]
        .trim();
  }
  return undefined;
}

function toolUse(id: string, name: string, input: Record<string, unknown>): PlannedBlock {
  return { type: 'tool_use', id, name, input, pieces: splitJson(JSON.stringify(input)) };
}

/** The plan of an agent's tool loop, or undefined when the knob is off or the request carries no tools. */
export function planAgentToolLoop(
  body: Record<string, unknown>,
  knobs: SimulatorKnobs,
  nextToolId: () => string,
): ReplyPlan | undefined {
  const loop = knobs.agentToolLoop;
  const tools = Array.isArray(body.tools) ? (body.tools as ToolDef[]).filter((t) => typeof t?.name === 'string') : [];
  if (!loop || tools.length === 0) return undefined;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const inputTokens = requestTexts(body).reduce((n, t) => n + countWords(t), 0);
  const uses = blocksOf(messages, 'assistant').filter((b) => b.type === 'tool_use');
  const results = blocksOf(messages, 'user').filter((b) => b.type === 'tool_result');
  const plan = (blocks: PlannedBlock[], stopReason: ReplyPlan['stopReason']): ReplyPlan => ({
    blocks,
    stopReason,
    stopSequence: null,
    inputTokens,
    outputTokens: blocks.reduce((n, b) => n + b.pieces.length, 0),
  });

  const read = findReadTool(tools) ?? findShellTool(tools);
  const readUse = uses.find(
    (u) => typeof u.name === 'string' && read !== undefined && normalise(u.name) === normalise(read.name),
  );
  // After a compaction the read is gone from the history, but the summary (the simulator's own: reply-plan.ts) still
  // says what it returned: a model answers from it rather than reading again.
  const remembered = readUse ? undefined : rememberedResult(messages);
  if (!readUse && remembered !== undefined)
    return plan(
      [{ type: 'text', pieces: splitText(`${loop.answerPrefix ?? 'The file says:'} ${remembered}`) }],
      'end_turn',
    );
  if (!readUse) {
    if (!read)
      return plan(
        [{ type: 'text', pieces: splitText(`No read-file tool among: ${tools.map((t) => t.name).join(', ')}`) }],
        'end_turn',
      );
    return plan(
      [toolUse(nextToolId(), read.name, (readInput(read, loop.path) ?? shellInput(read, loop.path))!)],
      'tool_use',
    );
  }
  const readResult = results.find((r) => r.tool_use_id === readUse.id);
  if (!readResult)
    return plan([{ type: 'text', pieces: splitText(`The result of ${readUse.name} did not come back.`) }], 'end_turn');
  const answer = `${loop.answerPrefix ?? 'The file says:'} ${resultText(readResult.content)}`;
  const done = completionTool(tools);
  const completed =
    done && uses.some((u) => typeof u.name === 'string' && normalise(u.name) === normalise(done.tool.name));
  if (done && !completed)
    return plan(
      [
        toolUse(nextToolId(), done.tool.name, {
          ...requiredDefaults(done.tool.input_schema, done.param),
          [done.param]: answer,
        }),
      ],
      'tool_use',
    );
  return plan([{ type: 'text', pieces: splitText(answer) }], 'end_turn');
}
