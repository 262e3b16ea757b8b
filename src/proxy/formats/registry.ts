// The wire formats on the contract (format.ts), by the name route-table rows give. Adding a format: its
// folder, one line here, and its rows in route-table.ts (docs/architecture.md "Wire formats").

import { compatFormat } from './compat/index.js';
import { messagesFormat } from './messages/index.js';
import { nativeChatFormat } from './native-chat/index.js';
import { ollamaChatFormat, ollamaGenerateFormat } from './ollama/index.js';
import { responsesCompactFormat, responsesFormat } from './responses/index.js';
import type { WireFormat } from './format.js';

const all = [
  nativeChatFormat,
  messagesFormat,
  compatFormat,
  responsesFormat,
  responsesCompactFormat,
  ollamaChatFormat,
  ollamaGenerateFormat,
] as const;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each format has its own answer options
export const wireFormats: ReadonlyMap<string, WireFormat<any>> = new Map(all.map((f) => [f.name, f]));
