// The Ollama API's error shape (docs/ollama.md): `{"error": "..."}` before headers, and that one line in the NDJSON
// stream after them (the writer's framing), which Ollama's client libraries raise. It has no type of its own: the
// log, metrics and ledger name its errors by the compatible codes.

import type { StreamErrorShape } from '../../http/stream-error.js';
import { compatErrorShape } from '../compat/error-shape.js';

export const ollamaErrorShape: StreamErrorShape = {
  family: 'ollama',
  body: (err) => ({ error: err.message }),
  streamEvents: (err) => [{ data: { error: err.message } }],
  typeName: compatErrorShape.typeName,
};
