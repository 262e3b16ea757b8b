// X-Proxy-Ignored-Params (docs/http.md): the request fields the proxy did not pass on, so
// that nothing is dropped silently. The names include the body's unknown keys, which the client chooses, so the
// value is made fit for a header in one place for every mode:
// - characters outside printable ASCII, and "%" and "," (the list separator), are percent-encoded as UTF-8: an
//   emoji or a control character would otherwise make Node refuse the header and the request end in a 500;
// - the list stops at about 1 KiB and says how many names were left out: a body with thousands of unknown keys
//   would otherwise produce a header larger than HTTP clients accept (undici's limit is 16 KiB for all headers).

export const ignoredParamsHeader = 'x-proxy-ignored-params';

const maxValueChars = 1024;

function encodeName(name: string): string {
  return name.replace(/[^\x21-\x7e]|[%,]/gu, (c) =>
    Array.from(Buffer.from(c, 'utf8'), (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

/** The header value for these field names ('' for none). */
export function ignoredParamsValue(names: readonly string[]): string {
  let out = '';
  for (let i = 0; i < names.length; i++) {
    const name = encodeName(names[i]);
    const sep = out ? ', ' : '';
    if (out.length + sep.length + name.length > maxValueChars) return `${out}${sep}... (+${names.length - i} more)`;
    out += sep + name;
  }
  return out;
}
