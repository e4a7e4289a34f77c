/**
 * Header values built from client input (a field name in a `warning`, a model name…) must be
 * valid field values whatever the client sent: visible ASCII, space and tab only. Anything else
 * (CR/LF, control characters, non-ASCII) is percent-encoded as UTF-8, so a value stays readable
 * and can never split a header or make node:http throw.
 */

/** Characters node:http and every client accept in a field value without question. */
const unsafe = /[^\t\x20-\x7e]/gu;

export function headerSafe(value: string): string {
  unsafe.lastIndex = 0;
  if (!unsafe.test(value)) return value;
  return value.replace(unsafe, percentEncoded);
}

function percentEncoded(character: string): string {
  let encoded = '';
  // A lone surrogate becomes U+FFFD's bytes (Buffer's UTF-8 encoding never throws).
  for (const byte of Buffer.from(character, 'utf8'))
    encoded += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return encoded;
}
