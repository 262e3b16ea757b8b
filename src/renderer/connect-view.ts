// The Connect tab: the base URLs of the modes that are on and the model ids, each with its own Copy button, and
// the copy-ready client snippets (snippets.ts) for tool mode or direct mode, whichever of them are on. Copy goes through ControlApi (the main process owns the
// clipboard); a short "Copied" note is announced to screen readers.

import type { ControlApi, ControlStatus, SettingsView } from '../proxy/control-api.js';
import { clientBaseUrl, sdkBaseUrls } from '../shared/endpoints.js';
import { byId, el, setText } from './dom.js';
import { modelListItems, type ModelListItem } from './model-list.js';
import { clientSnippets, dummyKey, maskKey, snippetModel, type Snippet, type SnippetMode } from './snippets.js';
import { clientBase } from './views.js';

/** Where the model list came from, in words (docs/configuration.md "Models"). */
function catalogLine(catalog: ControlStatus['modelCatalog']): string {
  if (!catalog) return '';
  const when = catalog.readAt ? ` read ${catalog.readAt.slice(0, 16).replace('T', ' ')} UTC` : '';
  if (catalog.source === 'live') return `From the provider's model list,${when}.`;
  if (catalog.source === 'cached')
    return `From the provider's model list as last saved,${when}; not read since this start.`;
  return "Built-in list: the provider's model list has not been read yet (log in with the CLI).";
}

export interface BaseUrl {
  what: string;
  url: string;
  note?: string;
}

/** Base URLs to copy, each labelled with the SDK it works in as it is (src/shared/endpoints.ts), for the modes that
 * are on. */
export function baseUrls(status: ControlStatus): BaseUrl[] {
  const out: BaseUrl[] = sdkBaseUrls(clientBase(status), status.modes).map((b) => ({
    what: b.label.charAt(0).toUpperCase() + b.label.slice(1),
    url: b.url,
    note: b.note,
  }));
  // The Ollama API's own address: IDE plugins with an Ollama provider take the address without a path.
  if (status.ollama.state === 'listening' && status.ollama.port !== undefined) {
    out.push({
      what: 'Ollama API',
      url: clientBaseUrl({ host: status.host, port: status.ollama.port }),
      note: 'for IDE plugins with an Ollama provider (docs/ollama.md)',
    });
  }
  return out;
}

const snippetModes: Array<{ mode: SnippetMode; label: string }> = [
  { mode: 'tool', label: 'Tool mode (your CLI)' },
  { mode: 'direct', label: 'Direct mode (the API)' },
];

/** The modes a snippet can be for, of those on; tool mode when neither is (the default, docs/interface.md "Modes"). */
function snippetModesOn(modes: string[]): Array<{ mode: SnippetMode; label: string }> {
  const on = snippetModes.filter((m) => modes.includes(m.mode));
  return on.length > 0 ? on : snippetModes.slice(0, 1);
}

export class ConnectPanel {
  private snippets: Snippet[] = [];
  private status: ControlStatus | undefined;
  private settings: SettingsView | undefined;

  constructor(private readonly control: ControlApi) {}

  setup(): void {
    byId('snippet-select').addEventListener('change', () => this.renderSnippets());
    byId('snippet-mode').addEventListener('change', () => this.renderSnippets());
    byId('copy-snippet').addEventListener('click', () => {
      const snippet = this.snippets.find((s) => s.id === byId<HTMLSelectElement>('snippet-select').value);
      if (snippet) void this.copy(snippet.text, 'Snippet copied.');
    });
    byId('copy-address').addEventListener('click', () => {
      if (this.status) void this.copy(clientBase(this.status), 'Base URL copied.');
    });
  }

  update(status: ControlStatus | undefined, settings: SettingsView | undefined): void {
    if (status) this.status = status;
    if (settings) this.settings = settings;
    if (!this.status) return;
    byId('base-urls-stopped').hidden = this.status.state === 'running';
    this.renderList(
      'base-url-list',
      baseUrls(this.status).map((b) => ({
        what: b.note ? `${b.what} (${b.note})` : b.what,
        text: b.url,
        label: `Copy the ${b.what} base URL`,
      })),
    );
    this.renderList(
      'model-list',
      modelListItems(this.status).map((m) => ({
        text: m.id,
        label: `Copy model id ${m.id}${m.deprecated ? ' (deprecated)' : ''}`,
        ...(m.note ? { note: m.note } : {}),
        ...(m.deprecated ? { deprecated: m.deprecated } : {}),
      })),
    );
    setText('model-catalog', catalogLine(this.status.modelCatalog));
    this.renderSnippets();
  }

  /** Copies and says so beside the snippet picker (one live region for every copy button on the tab). */
  async copy(text: string, said: string): Promise<void> {
    await this.control.copyText(text);
    setText('copy-message', said);
    setTimeout(() => setText('copy-message', ''), 2500);
  }

  private renderList(
    id: string,
    items: Array<{
      what?: string;
      text: string;
      label: string;
      note?: string;
      deprecated?: ModelListItem['deprecated'];
    }>,
  ): void {
    const list = byId(id);
    const key = JSON.stringify(items);
    if (list.dataset.key === key) return;
    list.dataset.key = key;
    list.replaceChildren(
      ...items.map((item) => {
        const li = el('li');
        if (item.what) li.append(el('span', item.what, 'what'));
        const button = el('button', 'Copy', 'small');
        button.type = 'button';
        button.setAttribute('aria-label', item.label);
        button.addEventListener('click', () => void this.copy(item.text, 'Copied.'));
        li.append(el('code', item.text));
        if (item.note) li.append(el('span', item.note, 'note'));
        li.append(button);
        // Under the id, across the row: the replacement to use instead (style.css .copy-list .deprecated).
        if (item.deprecated) {
          li.classList.add('is-deprecated');
          const said = el('span', item.deprecated.said, 'deprecated');
          said.append(el('span', item.deprecated.use, 'use'));
          li.append(said);
        }
        return li;
      }),
    );
  }

  private renderSnippets(): void {
    if (!this.status || !this.settings) return;
    const apiKey = this.settings.accessKey ?? dummyKey;
    const modeSelect = byId<HTMLSelectElement>('snippet-mode');
    const modes = snippetModesOn(this.status.modes);
    if (modeSelect.dataset.key !== modes.map((m) => m.mode).join()) {
      const chosen = modeSelect.value;
      modeSelect.dataset.key = modes.map((m) => m.mode).join();
      modeSelect.replaceChildren(...modes.map((m) => Object.assign(el('option', m.label), { value: m.mode })));
      if (modes.some((m) => m.mode === chosen)) modeSelect.value = chosen;
    }
    const mode = modeSelect.value as SnippetMode;
    const model = snippetModel(this.status.models, this.status.defaultModel);
    // The catalog's window and largest answer for the model, for the clients that must be told (Codex).
    const details = this.status.modelDetails?.find((m) => m.id === model);
    this.snippets = clientSnippets({
      baseUrl: clientBase(this.status),
      apiKey,
      model,
      sdk: this.status.sdk,
      mode,
      contextLength: details?.contextLength,
      maxTokens: details?.maxTokens,
    });
    const select = byId<HTMLSelectElement>('snippet-select');
    if (select.options.length !== this.snippets.length) {
      select.replaceChildren(...this.snippets.map((s) => Object.assign(el('option', s.title), { value: s.id })));
    }
    const current = this.snippets.find((s) => s.id === select.value) ?? this.snippets[0];
    setText('snippet-hint', current.hint);
    setText('snippet-text', maskKey(current.text, apiKey));
  }
}
