// A port that was free a moment ago on 127.0.0.1 (the OS chose it), for tests that must name a port up front.

import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', () => resolve()));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}
