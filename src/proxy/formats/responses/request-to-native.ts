// A Responses API request -> the native request (docs/clients.md "Codex and the Responses API"). One parse for
// every mode. Rules, each because of how the two formats differ:
// - `instructions`, and system and developer messages wherever they stand in `input` (Codex sends its prompt as
//   developer messages), become the one native `system`, in order, joined by blank lines;
// - function_call / custom_tool_call items become assistant tool_use blocks (custom input as {"input": text}),
//   their outputs user tool_result blocks; consecutive items of one native role are merged, as the native format
//   wants roles alternating;
// - a reasoning item with encrypted_content (the thinking signature this proxy handed out) becomes a thinking
//   block again; one without is display text only and is left out;
// - a freeform `custom` tool becomes a native tool taking one string `input`; its grammar goes to the model as
//   part of the description (a lossy conversion: warned), and its calls come back as custom_tool_call items;
// - tools the assistant cannot serve (web_search, namespace, tool_search, ...) and input items it has no
//   equivalent for are left out and named in X-Proxy-Ignored-Params: Codex always sends some, and exits on a 4xx;
// - previous_response_id is resolved before this parse (responses/chain-step.ts): the input it gets is already
//   the chain's items plus the new ones (docs/responses-store.md).

import type { DocumentRules } from '../../profile.js';
import { documentOfFile } from '../documents.js';
import type { ZodType } from 'zod';
import { invalidField } from '../../errors.js';
import { fieldOfPath, issueText, validate } from '../validate.js';
import type {
  NativeContentBlock,
  NativeRequest,
  NativeTool,
  NativeToolChoice,
  NativeToolResultBlock,
} from '../native.js';
import { reasoningEfforts, type ReasoningEffort } from '../../profile.js';
import { ConversationBuilder, imageBlockOfUrl, parseToolArguments, textBlocks } from '../conversation-builder.js';
import {
  addOutputConfig,
  applyEffortIntent,
  applyTemperature,
  nativeToolChoiceOf,
  nativeToolOf,
  outputFormatOf,
  unreadKeys,
} from '../request-rules.js';
import type { ClientNames, ParseContext, WireRequest } from '../format.js';
import {
  responsesCustomTool,
  responsesCustomToolCallItem,
  responsesFunctionCallItem,
  responsesFunctionCallOutputItem,
  responsesFunctionTool,
  responsesMessageItem,
  responsesReasoningItem,
  responsesRequestSchema,
  type CompactionAnswer,
  type ResponsesContentPart,
  type ResponsesRequest,
} from './schema.js';

/** What the answer needs of the request: which tool names are freeform, and the echo of a few settings. */
export interface ResponsesAnswerOptions {
  customTools: ReadonlySet<string>;
  parallelToolCalls: boolean;
  toolChoice: unknown;
  tools: unknown[];
  /** Set by the chain step (responses/chain-step.ts): the response's id, known before the backend is called, and
   * what the response echoes of the chain. */
  id?: string;
  previousResponseId?: string | null;
  store?: boolean;
  /** Set by the compaction step (responses/compaction-step.ts): answer with one compaction item instead of the
   * model's output (compaction-answer.ts). */
  compaction?: CompactionAnswer;
}

/** Fields read here; any other key a client sends is named in `ignored`. */
const handled = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'stream',
  'store',
  'previous_response_id',
  'reasoning',
  'text',
  'include',
]);

/** Tool kinds the assistant can be offered: the client runs both itself. */
const servedTools = new Set(['function', 'custom']);

function validateAt<S extends ZodType>(schema: S, value: unknown, prefix: string): ReturnType<S['parse']> {
  const result = schema.safeParse(value);
  if (result.success) return result.data as ReturnType<S['parse']>;
  const first = result.error.issues[0];
  throw invalidField(`${prefix}${first.path.length ? `.${fieldOfPath(first.path)}` : ''}`, issueText(first));
}

function textOfParts(parts: ResponsesContentPart[] | string): string {
  if (typeof parts === 'string') return parts;
  return parts
    .map((p) => ('text' in p && typeof p.text === 'string' ? p.text : p.type === 'refusal' ? p.refusal : ''))
    .join('');
}

/** Citations turned on for every document of the request (each came from an input_file). */
function citeDocuments(request: NativeRequest): void {
  for (const message of request.messages)
    if (typeof message.content !== 'string')
      for (const block of message.content) if (block.type === 'document') block.citations = { enabled: true };
}

/** User-side content parts -> native blocks: text, images, and files as documents (formats/documents.ts). */
function contentBlocks(
  parts: ResponsesContentPart[] | string,
  field: string,
  rules: DocumentRules,
): NativeContentBlock[] {
  if (typeof parts === 'string') return textBlocks(parts);
  const out: NativeContentBlock[] = [];
  parts.forEach((part, i) => {
    if (part.type === 'input_image') {
      if (!part.image_url) throw invalidField(`${field}.${i}.image_url`, 'is required (file ids are not supported)');
      out.push(imageBlockOfUrl(part.image_url, `${field}.${i}.image_url`));
    } else if (part.type === 'input_file') {
      out.push(documentOfFile(part, `${field}.${i}`, rules));
    } else {
      out.push(...textBlocks(part.type === 'refusal' ? part.refusal : part.text));
    }
  });
  return out;
}

/** Any JSON value is passed on as the call's input; only text that is not JSON is a 400. */
const argumentRules = { invalidJson: 'must be valid JSON' };

function inputOf(
  input: ResponsesRequest['input'],
  conversation: ConversationBuilder,
  ignored: string[],
  warnings: string[],
  rules: DocumentRules,
): void {
  if (typeof input === 'string') {
    conversation.push('user', [{ type: 'text', text: input }]);
    return;
  }
  input.forEach((raw, i) => {
    const field = `input.${i}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidField(field, 'must be an object');
    const type = (raw as { type?: unknown }).type;
    switch (type ?? 'message') {
      case 'message': {
        const item = validateAt(responsesMessageItem, raw, field);
        if (item.role === 'system' || item.role === 'developer') {
          conversation.addSystem(textOfParts(item.content));
        } else if (item.role === 'assistant') {
          conversation.push('assistant', textBlocks(textOfParts(item.content)));
        } else {
          conversation.push('user', contentBlocks(item.content, `${field}.content`, rules));
        }
        return;
      }
      case 'function_call': {
        const item = validateAt(responsesFunctionCallItem, raw, field);
        conversation.push('assistant', [
          {
            type: 'tool_use',
            id: item.call_id,
            name: item.name,
            input: parseToolArguments(item.arguments, `${field}.arguments`, argumentRules),
          },
        ]);
        return;
      }
      case 'custom_tool_call': {
        const item = validateAt(responsesCustomToolCallItem, raw, field);
        conversation.push('assistant', [
          { type: 'tool_use', id: item.call_id, name: item.name, input: { input: item.input } },
        ]);
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const item = validateAt(responsesFunctionCallOutputItem, raw, field);
        const content =
          typeof item.output === 'string'
            ? item.output
            : (contentBlocks(item.output, `${field}.output`, rules) as NativeToolResultBlock['content']);
        conversation.push('user', [{ type: 'tool_result', tool_use_id: item.call_id, content }]);
        return;
      }
      case 'reasoning': {
        const item = validateAt(responsesReasoningItem, raw, field);
        if (!item.encrypted_content) return; // display text only: nothing the provider can take back
        const thinking = [...(item.content ?? []), ...(item.content?.length ? [] : (item.summary ?? []))]
          .map((p) => p.text)
          .join('\n\n');
        conversation.push('assistant', [{ type: 'thinking', thinking, signature: item.encrypted_content }]);
        return;
      }
      default: {
        const name = typeof type === 'string' ? type.slice(0, 60) : 'unknown';
        if (!ignored.includes(`input.${name}`)) {
          ignored.push(`input.${name}`);
          warnings.push(`input items of type ${name} have no equivalent for the assistant and were left out`);
        }
      }
    }
  });
}

function toolsOf(
  body: ResponsesRequest,
  ignored: string[],
  warnings: string[],
): { tools: NativeTool[]; custom: Set<string>; served: unknown[] } {
  const tools: NativeTool[] = [];
  const custom = new Set<string>();
  const served: unknown[] = [];
  (body.tools ?? []).forEach((raw, i) => {
    const field = `tools.${i}`;
    if (!servedTools.has(raw.type)) {
      const name = `tools.${raw.type.slice(0, 60)}`;
      if (!ignored.includes(name)) {
        ignored.push(name);
        warnings.push(`tools of type ${raw.type.slice(0, 60)} cannot be offered to the assistant and were left out`);
      }
      return;
    }
    served.push(raw);
    if (raw.type === 'function') {
      const tool = validateAt(responsesFunctionTool, raw, field);
      tools.push(nativeToolOf(tool));
      return;
    }
    const tool = validateAt(responsesCustomTool, raw, field);
    custom.add(tool.name);
    const grammar = tool.format?.type === 'grammar' ? tool.format : undefined;
    if (grammar)
      warnings.push(
        `custom tool ${tool.name}: its ${grammar.syntax} grammar is given to the model as an instruction; its input is not checked against it`,
      );
    const about = grammar
      ? `The input is free-form text that must match this ${grammar.syntax} grammar:\n${grammar.definition}`
      : 'The input is free-form text.';
    tools.push({
      name: tool.name,
      description: [tool.description, about].filter(Boolean).join('\n\n'),
      input_schema: {
        type: 'object',
        properties: { input: { type: 'string', description: 'the free-form input of this tool' } },
        required: ['input'],
      },
    });
  });
  return { tools, custom, served };
}

function toolChoiceOf(body: ResponsesRequest, ignored: string[]): NativeToolChoice | undefined {
  const choice = body.tool_choice;
  let named: string | undefined;
  if (typeof choice === 'object' && choice !== null) {
    if ((choice.type === 'function' || choice.type === 'custom') && typeof choice.name === 'string')
      named = choice.name;
    // A choice of a tool kind the assistant is not offered (web_search, allowed_tools, ...) is named as ignored.
    else ignored.push('tool_choice');
  }
  return nativeToolChoiceOf(choice, named, body.parallel_tool_calls);
}

export function responsesRequestToNative(raw: unknown, context: ParseContext): WireRequest<ResponsesAnswerOptions> {
  const body = validate(responsesRequestSchema, raw);
  const warnings: string[] = [];
  const ignored: string[] = [];
  const conversation = new ConversationBuilder();
  conversation.addSystem(body.instructions);
  inputOf(body.input, conversation, ignored, warnings, context.api.documents);

  const system = conversation.systemText();
  const request: NativeRequest = {
    model: body.model,
    messages: conversation.messages,
    ...(system ? { system } : {}),
    max_tokens: body.max_output_tokens ?? context.api.defaultMaxTokens,
  };
  // JSON output and the reasoning effort arrive as intent; the mode fits them to the model (docs/models.md).
  const format = body.text?.format;
  if (format && format.type !== 'text') addOutputConfig(request, { format: outputFormatOf(format) });
  // The answer cites the files it read, as annotations (response-parts.ts annotationOf), where the format has a place
  // for them; not beside a JSON format, which the provider does not combine with citations.
  else citeDocuments(request);
  applyTemperature(request, body.temperature, 'temperature', warnings);
  if (body.top_p != null) request.top_p = body.top_p;

  const { tools, custom, served } = toolsOf(body, ignored, warnings);
  if (tools.length > 0) {
    request.tools = tools;
    const choice = toolChoiceOf(body, ignored);
    if (choice) request.tool_choice = choice;
  } else {
    for (const key of ['tool_choice', 'parallel_tool_calls'] as const)
      if (body[key] != null && body[key] !== 'auto') ignored.push(key);
  }

  const effort = body.reasoning?.effort;
  if (effort != null) {
    if (!(reasoningEfforts as readonly string[]).includes(effort))
      throw invalidField(
        'reasoning.effort',
        `must be one of ${reasoningEfforts.map((e) => JSON.stringify(e)).join(', ')}`,
      );
    applyEffortIntent(request, effort as ReasoningEffort);
  }
  if (body.text?.verbosity != null) ignored.push('text.verbosity');
  ignored.push(...unreadKeys(body, handled));

  const clientNames: ClientNames = {
    temperature: 'temperature',
    top_p: 'top_p',
    thinking: 'reasoning.effort',
    parallel_tool_calls: 'parallel_tool_calls',
    max_tokens: 'max_output_tokens',
    format: 'text.format',
    schema: 'text.format.schema',
    toolSchema: 'tools.parameters',
    strict: 'tools.strict',
    tool_choice: 'tool_choice',
  };
  return {
    request,
    stream: body.stream === true,
    ignored,
    warnings,
    clientNames,
    ...(body.max_output_tokens == null ? { maxTokensDefaulted: true } : {}),
    answer: {
      customTools: custom,
      parallelToolCalls: body.parallel_tool_calls !== false,
      toolChoice: body.tool_choice ?? 'auto',
      tools: served,
    },
  };
}
