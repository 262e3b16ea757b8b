// The chat routes of the formats on the wire-format contract (formats/registry.ts), registered from their rows in the
// route table: a row names a format and a mode, and its handler is the mode's refusals of the raw body -> parse (the
// format's, once) -> the mode's additions (its Mode's prepare, modes/) -> the one answer path over the mode's backend
// (chat/answer-chat.ts). No list of routes or modes lives here.

import { checkSchemas } from '../formats/check-schemas.js';
import { listenerOf, routeTable, type Listener } from '../route-table.js';
import type { Services } from '../services.js';
import type { ProxyContext } from '../http/types.js';
import { wireFormats } from '../formats/registry.js';
import { chatModes, type ModeParts } from '../modes/index.js';
import { answerChat } from '../chat/answer-chat.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';
import { chainRequest, type ResponseChains } from '../responses/chain-step.js';
import { compactionStep } from '../responses/compaction-step.js';

interface WireParts extends ModeParts {
  /** The kept responses, for a format that chains (responses/chain-step.ts); absent on the Ollama listener. */
  chains?: ResponseChains;
}

export function registerWireRoutes(
  router: ProxyRouter,
  services: Services,
  parts: WireParts,
  listener: Listener = 'main',
): void {
  const { api } = services.profile;
  const modes = chatModes(services, parts);
  for (const decl of routeTable) {
    // Each listener registers its own rows (the Ollama listener's: ollama/routes.ts).
    if (listenerOf(decl.path) !== listener) continue;
    const format = decl.format === undefined ? undefined : wireFormats.get(decl.format);
    // Rows without a format (token counts, forwarding, lists) are registered by their route family's file.
    if (!format) continue;
    // A route's family is its format's: the row states it for what is refused before routing.
    const { errorShape } = format;
    if (errorShape.family !== decl.family)
      throw new Error(
        `route-table.ts gives ${decl.path} the ${decl.family} family, but its format ${format.name} speaks ${errorShape.family}`,
      );
    const answer = format.answer.bind(format);
    // A row whose mode is a setting's (the Ollama listener's chats) is answered by the mode OLLAMA_MODE names.
    const setting = decl.modeBySetting ? services.config.ollamaMode : undefined;
    const chosen = setting ? { mode: setting } : {};
    const mode = modes.get(setting ?? decl.mode);
    if (!mode)
      throw new Error(
        `route-table.ts gives ${decl.path} the format ${format.name} in mode ${decl.mode}, which answers no chat`,
      );
    // A format whose requests may name an earlier response: its chain is read before the parse.
    const chains = format.chains ? parts.chains : undefined;
    const handler = async (ctx: ProxyContext): Promise<void> => {
      const step = chains && (await chainRequest(ctx, chains));
      const chained = step ? step.body : ctx.state.body;
      // Compaction items open, and a compaction asked for is noted, before the parse (responses/compaction-step.ts).
      const compaction =
        chains && format.compacts
          ? compactionStep(ctx, chained, format, mode, chains.seal, services.deps.now)
          : undefined;
      const body = compaction ? compaction.body : chained;
      mode.refuse?.(body, format);
      const parsed = format.parse(body, { api });
      // A schema that is not JSON Schema is the client's 400 before any process or provider call (every mode).
      checkSchemas(parsed.request, parsed.clientNames);
      step?.options(parsed.answer);
      compaction?.apply(parsed);
      const chat = await mode.prepare(ctx, parsed, answer);
      const linked = step ? step.chat(chat) : chat;
      // A summary is no turn of the conversation: no live process is tied to it, continued for it, or kept after it.
      if (ctx.state.purpose === 'compaction') {
        delete linked.link;
        linked.once = true;
      }
      await answerChat(ctx, services, mode.backend, linked);
    };
    addRoute(router, services, { ...chosen, method: decl.method, path: decl.path, json: true, errorShape, handler });
  }
}
