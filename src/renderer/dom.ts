// Tiny DOM helpers: elements by id (failing loudly when the page and the code disagree) and text-only writes,
// so nothing from the proxy (model names, paths, error texts) is ever parsed as HTML.

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing element #${id}`);
  return el as T;
}

export function setText(id: string, text: string): void {
  const el = byId(id);
  if (el.textContent !== text) el.textContent = text;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  className?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}
