// DATA_DIR's default: the platform's place for an application's own data (docs/configuration.md "Settings").

import { homedir } from 'node:os';
import { join } from 'node:path';

export function dataDir(): string {
  if (process.platform === 'win32' && process.env.APPDATA) return join(process.env.APPDATA, 'assistant-proxy');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'assistant-proxy');
  return join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'assistant-proxy');
}
