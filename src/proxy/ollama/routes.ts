// The Ollama API's routes (docs/ollama.md), on the Ollama listener's own router (app.ts), declared in route-table.ts
// under the internal prefix /ollama that the listener adds to each path:
//   GET  /                      "Ollama is running" (what clients and people probe first)
//   GET  /api/version           a version at or above what clients require (Copilot: 0.6.4)
//   GET  /api/tags, /api/ps     the model catalog; POST /api/show one model: capabilities and context length
//   POST /api/chat, /api/generate   answered by tool mode, or direct mode when OLLAMA_MODE says so, NDJSON or whole
//   GET  /v1/models, POST /v1/chat/completions   the compatible format on the same port, as Ollama's own /v1
//   /api/pull, /api/push, /api/create, /api/delete, /api/copy, /api/embed, /api/embeddings: "not supported by this
//   server", in Ollama's error shape
// Errors are Ollama's `{"error": "..."}` (the family `ollama`); those of /v1 are the compatible shape.

import type { Backend } from '../chat/backend.js';
import { ProxyError } from '../errors.js';
import { validate } from '../formats/validate.js';
import type { ProxyContext } from '../http/types.js';
import type { ListedCatalog } from '../models/live-catalog.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';
import { modelList, modelObject } from '../routes/models.js';
import { registerWireRoutes } from '../routes/wire-routes.js';
import {
  contextLengthOf,
  ollamaPs,
  ollamaShow,
  ollamaTags,
  type OllamaModelFacts,
} from '../formats/ollama/model-objects.js';
import { modelOfOllamaName } from '../formats/ollama/request-to-native.js';
import { ollamaModelBodySchema } from '../formats/ollama/schemas.js';

/**
 * The Ollama API version /api/version reports: the API this listener speaks (tools, images, thinking, /v1 beside
 * /api), at or above the minimum clients check (Copilot's Ollama provider wants 0.6.4).
 */
const ollamaApiVersion = '0.12.0';

export interface OllamaParts {
  cli: Backend;
  direct: Backend;
  catalog: ListedCatalog;
}

/** Ollama routes for what a local model runtime does and this proxy cannot. */
const unsupported: ReadonlyArray<readonly ['POST' | 'DELETE', string, string]> = [
  ['POST', '/api/pull', 'pulling a model'],
  ['POST', '/api/push', 'pushing a model'],
  ['POST', '/api/create', 'creating a model'],
  ['DELETE', '/api/delete', 'deleting a model'],
  ['POST', '/api/copy', 'copying a model'],
  ['POST', '/api/embed', 'embeddings'],
  ['POST', '/api/embeddings', 'embeddings'],
];

function factsOf(catalog: ListedCatalog): OllamaModelFacts[] {
  return catalog.ids.map((id) => {
    const { info } = catalog.resolve(id);
    return { id, created: info.created, contextLength: contextLengthOf(info) };
  });
}

export function registerOllama(router: ProxyRouter, services: Services, parts: OllamaParts): void {
  const { profile } = services;
  const { catalog } = parts;
  const get = (path: string, handler: (ctx: ProxyContext) => Promise<void> | void) =>
    addRoute(router, services, { method: 'GET', path: `/ollama${path}`, handler: async (ctx) => handler(ctx) });

  get('', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = 'Ollama is running (the Ollama API of Assistant Proxy; see docs/ollama.md)';
  });
  get('/api/version', (ctx) => {
    ctx.body = { version: ollamaApiVersion };
  });
  get('/api/tags', (ctx) => {
    ctx.body = ollamaTags(factsOf(catalog));
  });
  get('/api/ps', (ctx) => {
    ctx.body = ollamaPs(factsOf(catalog), services.deps.now());
  });
  addRoute(router, services, {
    method: 'POST',
    path: '/ollama/api/show',
    json: true,
    handler: async (ctx) => {
      const body = validate(ollamaModelBodySchema, ctx.state.body);
      const name = body.model ?? body.name;
      if (!name) throw new ProxyError('invalid_request', 'model is required', { field: 'model', issue: 'is required' });
      ctx.state.model = name;
      // An alias answers with the model it stands for, under the name the client asked about.
      const { info } = catalog.resolve(modelOfOllamaName(name));
      // Images of a user message reach the model in both modes (tool mode passes them to the CLI as image blocks).
      ctx.body = ollamaShow({ id: name, created: info.created, contextLength: contextLengthOf(info) });
    },
  });
  for (const [method, path, what] of unsupported) {
    addRoute(router, services, {
      method,
      path: `/ollama${path}`,
      handler: async () => {
        throw new ProxyError(
          'not_found',
          `${what[0].toUpperCase()}${what.slice(1)} is not supported by this server: it is Assistant Proxy's Ollama API, whose models run at the provider (docs/ollama.md)`,
        );
      },
    });
  }

  // Chat, generate and /v1/chat/completions are wire formats on the contract (formats/ollama/, formats/compat/), answered by
  // the one chat path in the mode OLLAMA_MODE names; their rows in route-table.ts name the format.
  registerWireRoutes(router, services, { cli: parts.cli, direct: parts.direct, catalog }, 'ollama');

  // The compatible format on the same port (Copilot's Ollama provider chats here after /api/show).
  get('/v1/models', (ctx) => {
    ctx.body = modelList(
      profile,
      factsOf(catalog).map((m) => catalog.resolve(m.id).info),
    );
  });
  get('/v1/models/:id', (ctx) => {
    ctx.body = modelObject(profile, catalog.resolve(modelOfOllamaName(String(ctx.params.id))).info);
  });
  // Its chat completions are the compatible format's row, registered with the others above.
}
