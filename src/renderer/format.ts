// Display formatting for the window, pure and tested.

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleTimeString(undefined, { hour12: false });
}

/** "in 3 h 12 min", "expired 5 min ago". */
export function formatExpiry(iso: string | undefined, now: number): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const left = t - now;
  const span = (ms: number) => {
    const min = Math.round(Math.abs(ms) / 60_000);
    if (min < 60) return `${min} min`;
    const h = Math.floor(min / 60);
    if (h < 48) return `${h} h ${min % 60} min`;
    return `${Math.floor(h / 24)} days`;
  };
  return left >= 0 ? `in ${span(left)}` : `expired ${span(left)} ago`;
}

export function formatTokens(input?: number, output?: number): string {
  if (input === undefined && output === undefined) return '–';
  return `${input ?? '–'} / ${output ?? '–'}`;
}

/** "Invalid setting PORT (--port): expected an integer from 0 to 65535" -> "Expected an integer from 0 to 65535". */
export function fieldMessage(message: string): string {
  const m = /^Invalid setting [^:]+:\s*(.*)$/s.exec(message);
  const text = m ? m[1] : message;
  return text.charAt(0).toUpperCase() + text.slice(1);
}
