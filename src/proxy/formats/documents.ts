// Documents in every format (docs/interface.md "Documents"): the provider reads a PDF (base64 or a URL) or plain
// text as a native `document` block. A compatible `file` part and a Responses `input_file` become one; a native
// `document` block passes as it is. What the provider cannot read is a 400 in the route's shape before any provider
// call or CLI process, naming the client's part and what to send instead: another media type, a `file_id` (this
// proxy has no files API), a document larger than the provider takes in one request, a PDF to a model without PDF
// input.

import { invalidField } from '../errors.js';
import type { DocumentRules } from '../profile.js';
import type { NativeDocumentBlock, NativeRequest } from './native.js';

const dataUrl = /^data:([^;,]+)(;[^,]*)?,(.*)$/s;

/** What to do instead of a type the provider cannot read, for the 400's message. */
const instead = (rules: DocumentRules) =>
  `the provider reads only PDF (${rules.pdfMediaType}) and plain text (${rules.textMediaType}) documents: convert it to PDF, or send its text as a text part`;

/**
 * A file given as a data URL (`data:application/pdf;base64,...`) -> a document: a PDF as base64, plain text as a
 * text source (the provider reads text documents only as text, not base64). `title`: the client's file name.
 */
function documentOfDataUrl(
  url: string,
  field: string,
  rules: DocumentRules,
  title?: string | null,
): NativeDocumentBlock {
  const match = dataUrl.exec(url);
  if (!match) throw invalidField(field, 'must be a data URL (data:application/pdf;base64,...)');
  const [, mediaType, params = '', payload] = match;
  const base64 = /;base64/i.test(params);
  const named = title ? { title } : {};
  if (mediaType.toLowerCase() === rules.pdfMediaType) {
    if (!base64) throw invalidField(field, 'must be base64 (data:application/pdf;base64,...)');
    return { type: 'document', source: { type: 'base64', media_type: rules.pdfMediaType, data: payload }, ...named };
  }
  if (mediaType.toLowerCase() === rules.textMediaType) {
    let text: string;
    try {
      text = base64 ? Buffer.from(payload, 'base64').toString('utf8') : decodeURIComponent(payload);
    } catch {
      throw invalidField(field, 'is a text data URL whose percent-encoding is broken');
    }
    return { type: 'document', source: { type: 'text', media_type: rules.textMediaType, data: text }, ...named };
  }
  throw invalidField(field, `has the type ${mediaType.slice(0, 80)}: ${instead(rules)}`);
}

/** A PDF by its http(s) URL, which the provider fetches itself. */
function documentOfUrl(url: string, field: string, title?: string | null): NativeDocumentBlock {
  if (!/^https?:\/\//i.test(url)) throw invalidField(field, 'must be an http(s) URL of a PDF');
  return { type: 'document', source: { type: 'url', url }, ...(title ? { title } : {}) };
}

/** A file by id: refused, saying that this proxy has no files API. */
function fileIdRefused(field: string): never {
  throw invalidField(
    field,
    'refers to an uploaded file, and this proxy has no files API: send the file itself (file_data as a data URL)',
  );
}

/** A file part as the OpenAI-style formats send it (a compatible `file`, a Responses `input_file`). */
interface FilePart {
  filename?: string | null;
  file_data?: string | null;
  /** Responses only: a PDF by its URL. */
  file_url?: string | null;
  file_id?: string | null;
}

/**
 * A file part -> a document: its data URL read, a URL fetched by the provider (where the format has `file_url`), a
 * file id refused (no files API). `field` names the part.
 */
export function documentOfFile(file: FilePart, field: string, rules: DocumentRules): NativeDocumentBlock {
  if (file.file_data) return documentOfDataUrl(file.file_data, `${field}.file_data`, rules, file.filename);
  if (file.file_url) return documentOfUrl(file.file_url, `${field}.file_url`, file.filename);
  if (file.file_id) fileIdRefused(`${field}.file_id`);
  throw invalidField(`${field}.file_data`, 'is required: the file as a data URL (data:application/pdf;base64,...)');
}

/** The model a request names, as far as documents go: `readsPdf` undefined for a model the catalog does not know
 * (the provider decides). */
export interface DocumentModel {
  id: string;
  readsPdf: boolean | undefined;
}

/** Bytes a base64 text decodes to. */
const decodedBytes = (b64: string): number => Math.floor((b64.length * 3) / 4);

/**
 * The request's documents checked against what the provider reads and what the model takes: media types, a PDF
 * to a model whose listed capabilities say it reads none, and their size together against the provider's request
 * limit. Native clients' own `document` blocks go through the same checks.
 */
export function checkDocuments(req: NativeRequest, model: DocumentModel, rules: DocumentRules): void {
  let bytes = 0;
  req.messages.forEach((message, i) => {
    if (typeof message.content === 'string') return;
    message.content.forEach((block, j) => {
      if (block.type !== 'document') return;
      const field = `messages.${i}.content.${j}`;
      const source = block.source;
      if (source.type === 'base64' && source.media_type !== rules.pdfMediaType)
        throw invalidField(`${field}.source.media_type`, `is ${source.media_type.slice(0, 80)}: ${instead(rules)}`);
      if (source.type === 'text' && source.media_type !== rules.textMediaType)
        throw invalidField(`${field}.source.media_type`, `must be ${rules.textMediaType} for a text document`);
      const pdf = source.type === 'base64' || source.type === 'url';
      if (pdf && model.readsPdf === false)
        throw invalidField(
          field,
          `is a PDF, and ${model.id} does not read PDFs (no pdf_input in its capabilities): choose a model that does (GET /v1/models lists them), or send the document's text`,
        );
      bytes += source.type === 'base64' ? decodedBytes(source.data) : source.type === 'text' ? source.data.length : 0;
    });
  });
  if (bytes > rules.maxRequestBytes)
    throw invalidField(
      'messages',
      `hold ${(bytes / 2 ** 20).toFixed(1)} MB of documents, more than the ${rules.maxRequestBytes / 2 ** 20} MB the provider takes in one request: split them over several requests`,
    );
}
