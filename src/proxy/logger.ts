// Structured logs with pino. Secrets never reach a log line: request headers that carry credentials are
// redacted by path, and free text (error messages, CLI output) passes through redactSecrets() first.

import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

const redactPaths = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'req.headers["x-proxy-access-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  '*.accessToken',
  '*.refreshToken',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  'accessKey',
  '*.accessKey',
];

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'assistant-proxy' },
      redact: { paths: redactPaths, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

const secretPatterns: RegExp[] = [
  /\b(sk-[A-Za-z0-9_-]{2,}-[A-Za-z0-9_-]{6,})/g, // provider keys and OAuth tokens (sk-xxx-...)
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, // JWTs
];

/** Replaces anything that looks like a key or token in free text. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const re of secretPatterns) out = out.replace(re, '[redacted]');
  return out;
}
