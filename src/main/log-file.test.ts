import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { logFileName, openAppLog, rotateIfLarge } from './log-file.js';
import { createLogger } from '../proxy/logger.js';

describe('the app log file', () => {
  it('receives the structured log, owner-only, with secrets redacted', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'applog-')), 'logs');
    const log = openAppLog(dir, { toStdout: false });
    expect(log.path).toBe(join(dir, logFileName));
    const logger = createLogger('info', log.destination);
    logger.info({ req: { headers: { authorization: 'Bearer sk-ant-oat01-secret-token' } } }, 'hello file');
    logger.flush();
    await expect.poll(async () => (await readFile(log.path, 'utf8').catch(() => '')).includes('hello file')).toBe(true);
    const text = await readFile(log.path, 'utf8');
    expect(text).not.toContain('sk-ant-oat01-secret-token');
    expect((await stat(log.path)).mode & 0o777).toBe(0o600);
  });

  it('keeps one previous file when the log has grown past the limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'applog-'));
    const path = join(dir, logFileName);
    await writeFile(path, 'x'.repeat(2000));
    expect(rotateIfLarge(path, 5000)).toBe(false);
    expect(rotateIfLarge(path, 1000)).toBe(true);
    expect((await stat(`${path}.1`)).size).toBe(2000);
    expect(rotateIfLarge(path, 1000)).toBe(false);
  });
});
