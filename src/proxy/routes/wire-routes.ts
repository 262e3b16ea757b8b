// The chat routes of the formats on the wire-format contract (formats/registry.ts), registered from their rows in the
// route table: a row names a format and a mode, and its handler is parse (the format's, once) -> the mode's
// additions (chat-modes.ts) -> the one answer path (answer-chat.ts). No list of routes lives here.

import type { Backend } from '../backends/backend.js';
import type { ListedCatalog } from './models.js';
import { listenerOf, routeTable, type Listener } from '../route-table.js';
import type { Services } from '../services.js';
import type { ProxyContext } from '../http/types.js';
import { wireFormats } from '../formats/registry.js';
import { answerChat } from './answer-chat.js';
import { directChat, directUpstream, toolChat } from './chat-modes.js';
import { addRoute, type ProxyRouter } from './define.js';
import { chainRequest, type ResponseChains } from './response-chain.js';

export interface WireParts {
  cli: Backend;
  direct: Backend;
  catalog: ListedCatalog;
  /** The kept responses, for a format that chains (routes/response-chain.ts); absent on the Ollama listener. */
  chains?: ResponseChains;
}

export function registerWireRoutes(
  router: ProxyRouter,
  services: Services,
  parts: WireParts,
  listener: Listener = 'main',
): void {
  const { api } = services.profile;
  for (const decl of routeTable) {
    // Each listener registers its own rows (the Ollama listener's: formats/ollama/listener.ts).
    if (listenerOf(decl.path) !== listener) continue;
    const format = decl.format === undefined ? undefined : wireFormats.get(decl.format);
    // Rows without a format (token counts, forwarding, lists) are registered by their route family's file.
    if (!format) continue;
    if (format.family !== decl.family)
      throw new Error(
        `route-table.ts gives ${decl.path} the ${decl.family} family, but its format ${format.name} speaks ${format.family}`,
      );
    const answer = format.answer.bind(format);
    const { errorShape } = format;
    // A row whose mode is a setting's (the Ollama listener's chats) is answered by the mode OLLAMA_MODE names.
    const setting = decl.modeBySetting ? services.config.ollamaMode : undefined;
    const mode = setting ?? decl.mode;
    const chosen = setting ? { mode: setting } : {};
    let handler: (ctx: ProxyContext) => Promise<void>;
    // A format whose requests may name an earlier response: its chain is read before the parse.
    const chains = format.chains ? parts.chains : undefined;
    if (mode === 'tool') {
      handler = async (ctx) => {
        const step = chains && (await chainRequest(ctx, chains));
        const parsed = format.parse(step ? step.body : ctx.state.body, { mode: 'tool', api });
        step?.options(parsed.answer);
        const chat = await toolChat(ctx, parsed, answer, parts.catalog, services.profile);
        await answerChat(ctx, services, parts.cli, step ? step.chat(chat) : chat);
      };
    } else if (mode === 'direct') {
      handler = async (ctx) => {
        const step = chains && (await chainRequest(ctx, chains));
        const parsed = format.parse(step ? step.body : ctx.state.body, { mode: 'direct', api });
        step?.options(parsed.answer);
        const chat = directChat(parsed, answer, parts.catalog, directUpstream(ctx, services), services.profile);
        await answerChat(ctx, services, parts.direct, step ? step.chat(chat) : chat);
      };
    } else {
      throw new Error(
        `route-table.ts gives ${decl.path} the format ${format.name} in mode ${decl.mode}, which answers no chat`,
      );
    }
    addRoute(router, services, { ...chosen, method: decl.method, path: decl.path, json: true, errorShape, handler });
  }
}
