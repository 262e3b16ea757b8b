// A Responses WebSocket client as Codex drives one (docs/responses-socket.md): the upgrade with the beta header, a
// queue of received frames, and one response.create read until the response ends. Shared by the socket's tests.

import WebSocket from 'ws';

export const beta = { 'openai-beta': 'responses_websockets=2026-02-06' };
export type Frame = {
  type: string;
  status?: number;
  error?: { code?: string };
  response?: { id: string; output: unknown[] };
};

/** A socket with a queue of received frames. */
export class Client {
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  closeCode: number | undefined;
  private constructor(
    readonly ws: WebSocket,
    private readonly model: string,
  ) {
    ws.on('message', (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame);
      for (const w of this.waiters.splice(0)) w();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  /** `model`: what each response.create names, unless its body names another. */
  static open(
    url: string,
    headers: Record<string, string> = {},
    model = 'assistant-sonnet-4-20250514',
  ): Promise<Client> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers: { ...beta, ...headers } });
      const client = new Client(ws, model);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) =>
        reject(Object.assign(new Error('refused'), { status: res.statusCode })),
      );
      ws.once('error', reject);
    });
  }

  /** Sends one response.create and reads frames until the response ends (completed, failed, an error frame). */
  async create(body: Record<string, unknown>): Promise<Frame[]> {
    const start = this.frames.length;
    this.ws.send(JSON.stringify({ type: 'response.create', model: this.model, ...body }));
    for (;;) {
      const got = this.frames.slice(start);
      const last = got.at(-1);
      if (last && ['response.completed', 'response.incomplete', 'response.failed', 'error'].includes(last.type))
        return got.filter((f) => f.type !== 'keepalive');
      if (this.closeCode !== undefined) throw new Error(`closed with ${this.closeCode}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  close(): void {
    this.ws.close();
  }
}
