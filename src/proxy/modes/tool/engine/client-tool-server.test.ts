import { connect as netConnect, type Socket } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientToolServer } from './client-tool-server.js';

const tools = [
  {
    name: 'read_file',
    description: 'Read a file',
    inputSchema: { type: 'object' as const, properties: { path: { type: 'string' } } },
  },
];
const meta = 'claudecode/toolUseId';

describe('ClientToolServer', () => {
  let server: ClientToolServer | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close().catch(() => undefined);
    await server?.close();
    client = server = undefined;
  });

  async function connect(secret: string): Promise<Client> {
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(server!.url), {
        requestInit: { headers: { Authorization: `Bearer ${secret}` } },
      }),
    );
    return c;
  }

  it('lists the tools and refuses a caller without the secret', async () => {
    server = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    await expect(connect('wrong')).rejects.toThrow();
    client = await connect(server.secret);
    expect((await client.listTools()).tools).toEqual(tools);
  });

  it('holds a call until its result is given, and gives a result that came first at once', async () => {
    server = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    client = await connect(server.secret);
    const pending = client.callTool({ name: 'read_file', arguments: { path: 'a' }, _meta: { [meta]: 'toolu_1' } });
    let settled = false;
    void pending.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    expect(server.callIds()).toEqual(['toolu_1']);
    server.answer('toolu_1', { content: [{ type: 'text', text: 'file a' }], isError: true });
    expect(await pending).toMatchObject({ content: [{ type: 'text', text: 'file a' }], isError: true });

    server.answer('toolu_2', { content: [{ type: 'text', text: 'early' }] });
    expect(await client.callTool({ name: 'read_file', arguments: {}, _meta: { [meta]: 'toolu_2' } })).toMatchObject({
      content: [{ type: 'text', text: 'early' }],
    });
  });

  it('answers a call without a tool_use id as an error, and ends waiting calls with an error on close', async () => {
    server = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    client = await connect(server.secret);
    expect(await client.callTool({ name: 'read_file', arguments: {} })).toMatchObject({ isError: true });
    const pending = client.callTool({ name: 'read_file', arguments: {}, _meta: { [meta]: 'toolu_3' } });
    await new Promise((r) => setTimeout(r, 100));
    // close() returns promptly with a call held open, after the call's error result was written on its answer.
    await server.close();
    expect(await pending).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'The client did not send a result for this call.' }],
    });
  });

  it('on close, delivers the error result of every held call, each on its own answer, and closes at once without any', async () => {
    server = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    client = await connect(server.secret);
    const held = ['toolu_a', 'toolu_b', 'toolu_c'].map((id) =>
      client!.callTool({ name: 'read_file', arguments: {}, _meta: { [meta]: id } }),
    );
    await expect.poll(() => server!.callIds().length).toBe(3);
    await server.close();
    for (const result of await Promise.all(held)) expect(result).toMatchObject({ isError: true });
    const idle = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    const started = Date.now();
    await idle.close();
    expect(Date.now() - started).toBeLessThan(500);
  });

  /** A raw request to the server: status of the answer, or 'closed' when the connection is closed without one. */
  async function raw(head: string): Promise<number | 'closed'> {
    const { port } = new URL(server!.url);
    return new Promise((resolve) => {
      const socket = netConnect(Number(port), '127.0.0.1', () => socket.write(head));
      let data = '';
      socket.on('data', (d) => (data += d.toString()));
      socket.on('close', () => resolve(data.startsWith('HTTP/1.1 ') ? Number(data.slice(9, 12)) : 'closed'));
      socket.on('error', () => undefined);
      setTimeout(() => socket.end(), 300);
    });
  }

  it('refuses a foreign Host or Origin before the secret is compared (DNS rebinding)', async () => {
    server = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    const { port } = new URL(server.url);
    const auth = `Authorization: Bearer ${server.secret}\r\n`;
    const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
    const req = (headers: string) =>
      `POST /mcp HTTP/1.1\r\n${headers}${auth}Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
    expect(await raw(req('Host: evil.example\r\n'))).toBe(403);
    expect(await raw(req(`Host: 127.0.0.1:${port}\r\nOrigin: http://evil.example\r\n`))).toBe(403);
    expect(await raw(req(`Host: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\n`))).not.toBe(403);
    expect(await raw(req(`Host: localhost:${port}\r\n`))).not.toBe(403);
  });

  it('holds at most its connection cap, counts each socket with the proxy (admit), and closes a head that never completes', async () => {
    let admitted = 0;
    let open = 0;
    server = await ClientToolServer.start({
      tools,
      secretHeader: 'Authorization',
      toolUseIdMeta: meta,
      maxConnections: 3,
      headTimeoutMs: 500,
      admit: () => {
        if (open >= 2) return false;
        admitted++;
        open++;
        return () => open--;
      },
    });
    const { port } = new URL(server.url);
    const sockets: Socket[] = [];
    const closed: boolean[] = [];
    for (let i = 0; i < 3; i++) {
      const socket = netConnect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      const at = i;
      closed[at] = false;
      socket.on('close', () => (closed[at] = true));
      socket.resume(); // read what the server says, so its close is seen
      sockets.push(socket);
      await new Promise((r) => socket.once('connect', r));
      socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // a head that never ends
    }
    // The third was refused by the proxy's cap; the first two are closed by the head deadline.
    await expect.poll(() => closed[2], { timeout: 3000 }).toBe(true);
    expect(admitted).toBe(2);
    await expect.poll(() => closed[0] && closed[1], { timeout: 5000 }).toBe(true);
    expect(open).toBe(0);
    for (const s of sockets) s.destroy();
  });
});
