// The one table from a route family (route-table.ts) to its error shape (docs/interface.md "Errors"): what the
// outermost renderer (http/errors.ts, handed this table by server.ts) answers on a path before a route with a shape of
// its own is matched: an unknown path, a refusal before routing, a route without a format. A format names its own shape
// (formats/format.ts), of the same family.

import type { Family } from '../route-table.js';
import { generalErrorShape, type ErrorShape } from '../http/error-shape.js';
import { compatErrorShape } from './compat/error-shape.js';
import { nativeErrorShape } from './native-error-shape.js';
import { ollamaErrorShape } from './ollama/error-shape.js';

export const familyErrorShapes: Readonly<Record<Family, ErrorShape>> = {
  compat: compatErrorShape,
  native: nativeErrorShape,
  general: generalErrorShape,
  ollama: ollamaErrorShape,
};
