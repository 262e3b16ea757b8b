// The window's sections as WAI-ARIA tabs: one tab stop for the tab list, arrow keys (and Home/End) move between
// tabs, Enter/Space or a click shows one. Panels that poll their data start when first shown (onShow).

export function setupTabs(onShow: (panelId: string) => void): (panelId: string) => void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role=tab]')];
  const show = (tab: HTMLButtonElement, focus: boolean) => {
    for (const t of tabs) {
      const selected = t === tab;
      t.setAttribute('aria-selected', String(selected));
      t.tabIndex = selected ? 0 : -1;
      const panel = document.getElementById(t.getAttribute('aria-controls') ?? '');
      if (panel) panel.hidden = !selected;
    }
    if (focus) tab.focus();
    onShow(tab.getAttribute('aria-controls') ?? '');
  };
  for (const [i, tab] of tabs.entries()) {
    tab.addEventListener('click', () => show(tab, false));
    tab.addEventListener('keydown', (e) => {
      const to =
        e.key === 'ArrowRight'
          ? i + 1
          : e.key === 'ArrowLeft'
            ? i - 1
            : e.key === 'Home'
              ? 0
              : e.key === 'End'
                ? tabs.length - 1
                : undefined;
      if (to === undefined) return;
      e.preventDefault();
      show(tabs[(to + tabs.length) % tabs.length], true);
    });
  }
  return (panelId) => {
    const tab = tabs.find((t) => t.getAttribute('aria-controls') === panelId);
    if (tab) show(tab, false);
  };
}
