// A diagnose report is made to be pasted into a bug report, so by default it leaves out who the owner is and where
// their files are: account e-mail addresses become `<e-mail>` and the home directory `~`. `--diagnose --full` (the
// `full` option) keeps them, for the owner's own eyes. Pure; tested in test/diagnose.test.ts.

import type { DiagnoseReport } from './types.js';

const email = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `text` without e-mail addresses and with the home directory written `~`. */
export function withoutPrivateText(text: string, home: string): string {
  let out = text.replace(email, '<e-mail>');
  const h = home.replace(/[\\/]+$/, '');
  // A home of `/` (or none) names nothing private.
  if (h.length > 1) out = out.replace(new RegExp(`${escapeRegExp(h)}(?=$|[\\\\/\\s'"),;:])`, 'g'), '~');
  return out;
}

export function withoutPrivateDetails(report: DiagnoseReport, home: string): DiagnoseReport {
  const clean = (t: string) => withoutPrivateText(t, home);
  return {
    ...report,
    target: clean(report.target),
    checks: report.checks.map((c) => ({
      ...c,
      title: clean(c.title),
      detail: clean(c.detail),
      ...(c.remedy !== undefined ? { remedy: clean(c.remedy) } : {}),
    })),
  };
}
