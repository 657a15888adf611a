import { type IP, formatIP } from '../ip';

/**
 * Go's fmt verbs as MetalLB's messages use them, so mlb's event texts are byte-identical:
 * - %q of a string is strconv.Quote: double quotes, backslash escapes for quotes, backslashes and control
 *   characters; printable Unicode is kept as is;
 * - %q of a slice prints each element with %q, space-separated inside brackets: ["1.2.3.4" "fc00::1"];
 * - a net.IP prints with String(), which src/ip's formatIP reproduces.
 */

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\u000b': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Code points strconv.IsPrint rejects that a Kubernetes name or annotation could plausibly hold. */
const ASCII_CONTROL_MAX = 0x1f;
const ASCII_DELETE = 0x7f;
const C1_CONTROL_MIN = 0x80;
const C1_CONTROL_MAX = 0x9f;

/** strconv.Quote for the characters that occur in names, annotations and addresses. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) {
      out += short;
      continue;
    }
    const cp = ch.codePointAt(0) as number;
    if (cp <= ASCII_CONTROL_MAX || cp === ASCII_DELETE) {
      out += `\\x${cp.toString(16).padStart(2, '0')}`;
    } else if (cp >= C1_CONTROL_MIN && cp <= C1_CONTROL_MAX) {
      out += `\\u${cp.toString(16).padStart(4, '0')}`;
    } else {
      out += ch;
    }
  }
  return `${out}"`;
}

/** %q of a []string: ["a" "b"]. */
export function goQuoteList(items: readonly string[]): string {
  return `[${items.map(goQuote).join(' ')}]`;
}

/** %q of a []net.IP: ["192.168.10.200" "fc00::1"]. */
export function goQuoteIPs(ips: readonly IP[]): string {
  return goQuoteList(ips.map(formatIP));
}
