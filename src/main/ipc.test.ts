// The IPC mapping: every ControlApi method travels from the preload's window.control over its channel to the
// main process handler and on to the API, with the sender check in between. Electron is replaced by a fake
// ipcMain/ipcRenderer pair wired together, and contextBridge by a capture of what the preload exposes.

import { readFileSync } from 'node:fs';
import { runInNewContext } from 'node:vm';
import type { IpcMainInvokeEvent } from 'electron';
import ts from 'typescript';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  channelOf,
  controlMethods,
  registerIpc,
  showPanelChannel,
  statusPushChannel,
  type IpcMainLike,
} from './ipc.js';
import type { ControlApi } from '../proxy/control-api.js';
import { statusFixture } from '../../test/main/status-fixture.js';

type Handler = (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown;

const bus = {
  handlers: new Map<string, (event: unknown, ...args: unknown[]) => unknown>(),
  exposed: new Map<string, unknown>(),
  sender: { id: 1 } as unknown,
  frameUrl: 'file:///app/dist/renderer/index.html',
  /** Channels the preload listens on (status pushes, tab requests from the tray). */
  listening: [] as string[],
};

const fakeElectron = {
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => bus.exposed.set(key, api) },
  ipcRenderer: {
    invoke: async (channel: string, ...args: unknown[]) => {
      const handler = bus.handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return handler({ sender: bus.sender, senderFrame: { url: bus.frameUrl } }, ...args);
    },
    on: (channel: string) => void bus.listening.push(channel),
    removeListener: () => undefined,
  },
};

/**
 * Runs the preload as Electron's sandbox does: compiled to CommonJS (as tsc emits preload.cjs), with a
 * `require` that knows only `electron`, so a preload that imported anything else would fail here too.
 */
function runPreload(): void {
  const source = readFileSync(new URL('./preload.cts', import.meta.url), 'utf8');
  const js = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const module = { exports: {} };
  const sandboxRequire = (name: string) => {
    if (name === 'electron') return fakeElectron;
    throw new Error(`module not found: ${name} (a sandboxed preload can require only electron)`);
  };
  runInNewContext(`(function (exports, require, module) {${js}\n})`, {})(module.exports, sandboxRequire, module);
}

function fakeIpcMain(): IpcMainLike {
  return {
    handle: (channel, listener) => {
      if (bus.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
      bus.handlers.set(channel, listener as Handler as never);
    },
    removeHandler: (channel) => void bus.handlers.delete(channel),
  };
}

function recordingApi(calls: Array<[string, unknown[]]>): ControlApi {
  const status = statusFixture();
  const api = {} as Record<string, (...args: unknown[]) => Promise<unknown>>;
  for (const method of controlMethods) {
    api[method] = async (...args: unknown[]) => {
      calls.push([method, args]);
      return method === 'getStatus' ? status : `${method}-result`;
    };
  }
  return api as unknown as ControlApi;
}

describe('IPC registry', () => {
  beforeEach(() => {
    bus.handlers.clear();
    bus.exposed.clear();
  });

  it('registers one channel per ControlApi method and removes them again', () => {
    const dispose = registerIpc({ ipcMain: fakeIpcMain(), api: recordingApi([]), isTrustedSender: () => true });
    expect([...bus.handlers.keys()].sort()).toEqual(controlMethods.map((m) => `control:${m}`).sort());
    dispose();
    expect(bus.handlers.size).toBe(0);
  });

  it('carries every window.control call from the preload to the same API method with its arguments', async () => {
    const calls: Array<[string, unknown[]]> = [];
    const trusted = bus.sender;
    registerIpc({
      ipcMain: fakeIpcMain(),
      api: recordingApi(calls),
      isTrustedSender: (e) => e.sender === trusted && e.senderFrame?.url === bus.frameUrl,
    });
    runPreload();
    const control = bus.exposed.get('control') as Record<string, (...a: unknown[]) => Promise<unknown>>;
    // The preload's own list must cover exactly the registry's methods (it cannot import ipc.ts when sandboxed).
    expect(
      Object.keys(control)
        .filter((k) => k !== 'onStatus' && k !== 'onShow')
        .sort(),
    ).toEqual([...controlMethods].sort());
    // The two push subscriptions listen on the channels ipc.ts names.
    (control.onStatus as unknown as (l: () => void) => void)(() => undefined);
    (control.onShow as unknown as (l: () => void) => void)(() => undefined);
    expect(bus.listening).toEqual([statusPushChannel, showPanelChannel]);

    expect(await control.getStatus()).toEqual(statusFixture());
    expect(await control.updateSettings({ port: 8123 })).toBe('updateSettings-result');
    expect(await control.checkPort(8123)).toBe('checkPort-result');
    expect(await control.copyText('http://127.0.0.1:8000/v1')).toBe('copyText-result');
    for (const method of controlMethods) await control[method]();
    expect(calls.slice(0, 4)).toEqual([
      ['getStatus', []],
      ['updateSettings', [{ port: 8123 }]],
      ['checkPort', [8123]],
      ['copyText', ['http://127.0.0.1:8000/v1']],
    ]);
    expect(calls.slice(4).map(([m]) => m)).toEqual([...controlMethods]);
  });

  it('refuses calls from any other webContents or page, before they reach the API', async () => {
    const calls: Array<[string, unknown[]]> = [];
    const refused: string[] = [];
    const ours = { id: 1 };
    registerIpc({
      ipcMain: fakeIpcMain(),
      api: recordingApi(calls),
      isTrustedSender: (e) =>
        e.sender === (ours as never) && e.senderFrame?.url === 'file:///app/dist/renderer/index.html',
      onRefused: (method) => refused.push(method),
    });
    const handler = bus.handlers.get(channelOf('updateSettings'))!;
    await expect(
      Promise.resolve(
        handler({ sender: { id: 2 }, senderFrame: { url: 'file:///app/dist/renderer/index.html' } }, { port: 1 }),
      ),
    ).rejects.toThrow(/Refused updateSettings/);
    await expect(
      Promise.resolve(handler({ sender: ours, senderFrame: { url: 'https://evil.example/' } }, { port: 1 })),
    ).rejects.toThrow(/did not come from/);
    expect(calls).toEqual([]);
    expect(refused).toEqual(['updateSettings', 'updateSettings']);
    expect(
      await handler({ sender: ours, senderFrame: { url: 'file:///app/dist/renderer/index.html' } }, { port: 1 }),
    ).toBe('updateSettings-result');
  });
});
