/**
 * `kubectl get ... -o json` prints one JSON value per command, so output saved from two commands into one file
 * (or piped together) is several JSON objects one after the other. Each is a YAML document (JSON is YAML 1.2,
 * section 1.3), but YAML needs a "---" between documents, so the stream fails as a syntax error at the second "{".
 * This puts a "--- " before every top-level "{" that follows a complete value, on the same line, so the line
 * numbers of diagnostics stay those of the file (only that line's columns move by four). Pure.
 */

/** The marker put before each later object: YAML's document start, then a space so the "{" stays on its line. */
const DOCUMENT_START = '--- ';

/** Where each top-level object after the first begins, when `text` is a stream of JSON objects; else []. */
function jsonObjectStarts(text: string): number[] {
  const first = text.search(/\S/);
  if (first === -1 || text[first] !== '{') return [];
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  for (let i = first; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 0 && i !== first) {
      // Between top-level values only whitespace and the next object: anything else (a "---", a YAML line after
      // a flow mapping) means the text is YAML, which is left exactly as it is.
      if (c === '{') starts.push(i);
      else if (!/\s/.test(c ?? '')) return [];
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return starts;
}

/**
 * `text` with a document start before each later top-level object (see the file comment); other texts as they
 * are. An object that begins on the same line as the previous one ends ("}{") gets a line break first: the only
 * case where later line numbers move, and one kubectl never prints (each value ends with a newline).
 */
export function separateJsonObjects(text: string): string {
  const starts = jsonObjectStarts(text);
  if (starts.length === 0) return text;
  let out = '';
  let from = 0;
  for (const start of starts) {
    const lineStart = text.lastIndexOf('\n', start - 1) + 1;
    const onOwnLine = text.slice(lineStart, start).trim() === '';
    out += onOwnLine
      ? text.slice(from, lineStart) + DOCUMENT_START + text.slice(lineStart, start)
      : `${text.slice(from, start)}\n${DOCUMENT_START}`;
    from = start;
  }
  return out + text.slice(from);
}
