import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientToolServer } from './client-tool-server.js';

const tools = [{ name: 'read_file', description: 'Read a file', inputSchema: { type: 'object' as const, properties: { path: { type: 'string' } } } }];
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
    await c.connect(new StreamableHTTPClientTransport(new URL(server!.url), { requestInit: { headers: { Authorization: `Bearer ${secret}` } } }));
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
    expect(await client.callTool({ name: 'read_file', arguments: {}, _meta: { [meta]: 'toolu_2' } })).toMatchObject({ content: [{ type: 'text', text: 'early' }] });
  });

  it('answers a call without a tool_use id as an error, and ends waiting calls with an error on close', async () => {
    server = await ClientToolServer.start({ tools, secretHeader: 'Authorization', toolUseIdMeta: meta });
    client = await connect(server.secret);
    expect(await client.callTool({ name: 'read_file', arguments: {} })).toMatchObject({ isError: true });
    const pending = client.callTool({ name: 'read_file', arguments: {}, _meta: { [meta]: 'toolu_3' } });
    await new Promise((r) => setTimeout(r, 100));
    // close() returns promptly even with a call held open, and the call does not hang on: its error result is
    // sent, or the connection closes under it (the process is being ended anyway).
    await server.close();
    const outcome = await Promise.race([pending.then((r) => r, (e: unknown) => e), new Promise((r) => setTimeout(() => r('still pending'), 5000))]);
    expect(outcome).not.toBe('still pending');
    if (!(outcome instanceof Error)) expect(outcome).toMatchObject({ isError: true, content: [{ type: 'text', text: 'The client did not send a result for this call.' }] });
  });
});
