/** MODELGATE_DATABASE_URL as messages and logs may show it (it may carry a password). */

/** The URL as a message may show it: no password, no query string (it may carry one too). */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${decodeURIComponent(parsed.username)}@`;
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres://…';
  }
}

/** The password in the URL, for the log's redaction list (undefined when there is none). */
export function urlPassword(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}
