// A small single-consumer queue that turns the CLI child's callbacks (stdout lines, its end, a deadline or a client
// disconnect) into one ordered sequence the backend's generator awaits. Pushing never blocks; `next()` waits for the
// next item. Once an `abort` item is queued, it is delivered before any item queued earlier, because a deadline or
// a gone client must not wait behind buffered output.

export type ChannelItem<L, E> = { kind: 'line'; line: L } | { kind: 'end'; end: E } | { kind: 'abort'; reason: unknown };

export class LineChannel<L, E> {
  private readonly items: Array<ChannelItem<L, E>> = [];
  private waiter: ((item: ChannelItem<L, E>) => void) | undefined;

  push(item: ChannelItem<L, E>): void {
    if (this.waiter) {
      const wake = this.waiter;
      this.waiter = undefined;
      wake(item);
    } else if (item.kind === 'abort') {
      this.items.unshift(item);
    } else {
      this.items.push(item);
    }
  }

  next(): Promise<ChannelItem<L, E>> {
    const item = this.items.shift();
    if (item) return Promise.resolve(item);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}
