/**
 * `mlb explain`'s selection and printing, one explanation at a time: the explanations arrive as a sequence
 * (offline they are built as they are read, election/explain-each.ts) and each is written, with the stream's
 * back-pressure respected, before the next is built. 10,000 services over 1,000 nodes print gigabytes of text;
 * built into one string first they overflowed V8's string limit. The output is byte for byte what printing the
 * whole list at once gave: text blocks separated by a blank line, an indented JSON array, a YAML list.
 */
import type { Writable } from 'node:stream';
import { stringify as yamlText } from 'yaml';
import { formatIP, parseIP } from '../ip';
import type { Explanation } from '../election';
import { CommandError } from './exit-codes';
import type { OutputFormat } from './output-format';
import { candidateText } from './reason-text';
import { renderTable } from './render-table';
import { reportUnannounced } from './unannounced-explanations';

/** JSON.stringify replacer: bigint-free contract fields plus the optional BGP detail. */
function contractFields(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Each candidate table sits under its service's line. */
const TABLE_INDENT = '  ';

function renderExplanation(e: Explanation): string {
  const verdict =
    e.protocol === 'layer2'
      ? e.winner
        ? `owner ${e.winner}`
        : 'NOBODY ANNOUNCES'
      : e.announcing.length > 0
        ? `announced by ${e.announcing.join(', ')}`
        : 'NOBODY ANNOUNCES';
  const rows = e.candidates.map((c) => [c.rank === null ? '-' : String(c.rank), c.node, c.reason, candidateText(e, c)]);
  const notes = (e.notes ?? []).map((n) => `  note: ${n}\n`).join('');
  const view = e.viewer ? ` (as ${e.viewer} sees it)` : '';
  return `${e.service} ${e.ip} (${e.protocol}): ${verdict}${view}\n${notes}${renderTable(['RANK', 'NODE', 'REASON', ''], rows, TABLE_INDENT)}`;
}

/** One element of `JSON.stringify(list, replacer, 2)`: the element's lines indented once more. */
function jsonElement(e: Explanation): string {
  return `  ${JSON.stringify(e, contractFields, 2).replaceAll('\n', '\n  ')}`;
}

/** One element of the YAML list the whole array would print as (made from the JSON, so the same fields). */
function yamlElement(e: Explanation): string {
  return yamlText([JSON.parse(JSON.stringify(e, contractFields)) as unknown]);
}

/** The pieces to write for `explanations` in `format`, made one explanation at a time. */
function* outputPieces(explanations: Iterable<Explanation>, format: OutputFormat): Generator<string> {
  let count = 0;
  for (const e of explanations) {
    if (format === 'json') yield `${count === 0 ? '[\n' : ',\n'}${jsonElement(e)}`;
    else if (format === 'yaml') yield yamlElement(e);
    else yield `${count === 0 ? '' : '\n'}${renderExplanation(e)}`;
    count++;
  }
  if (format === 'json') yield count === 0 ? '[]\n' : '\n]\n';
  else if (format === 'yaml' && count === 0) yield '[]\n';
  else if (format !== 'yaml' && count === 0) yield 'no service has an IP to announce\n';
}

/** Writes `text`, waiting for the stream to drain when its buffer is full (a slow pager, a full pipe). */
async function write(out: Writable, text: string): Promise<void> {
  if (out.write(text)) return;
  await new Promise<void>((resolve, reject) => {
    const done = (error?: Error): void => {
      out.off('drain', done);
      out.off('error', done);
      if (error) reject(error);
      else resolve();
    };
    out.once('drain', done);
    out.once('error', done);
  });
}

/** Prints the explanations as they come, then says which IPs nobody announces (exit 1, unannounced-explanations). */
export async function printExplanations(
  explanations: Iterable<Explanation>,
  format: OutputFormat,
  out: Writable = process.stdout,
): Promise<void> {
  const unannounced: Explanation[] = [];
  const seen = function* (): Generator<Explanation> {
    for (const e of explanations) {
      // Only what the closing lines name is kept: service and IP, not the candidates.
      const announced = e.protocol === 'layer2' ? e.winner !== null : e.announcing.length > 0;
      if (!announced) unannounced.push({ ...e, candidates: [] });
      yield e;
    }
  };
  for (const piece of outputPieces(seen(), format)) await write(out, piece);
  reportUnannounced(unannounced);
}

/**
 * The explanations a target names (none: all), in their order; a target that names nothing is an error, raised
 * before anything is printed. With targets, only the matches are kept (one pass); without, the sequence itself.
 */
export function selectExplanations(all: Iterable<Explanation>, targets: readonly string[], where: string): Iterable<Explanation> {
  if (targets.length === 0) return all;
  const matchers = targets.map((target) => {
    const ip = parseIP(target);
    return {
      target,
      ip: ip ? formatIP(ip) : undefined,
      found: false,
    };
  });
  const selected: Explanation[] = [];
  const known = new Set<string>();
  for (const e of all) {
    known.add(`${e.service} ${e.ip}`);
    let hit = false;
    for (const m of matchers) {
      const matches = m.ip !== undefined ? e.ip === m.ip : e.service === m.target || e.service === `default/${m.target}`;
      if (matches) m.found = hit = true;
    }
    if (hit) selected.push(e);
  }
  const missing = matchers.find((m) => !m.found);
  if (missing) {
    const what = missing.ip !== undefined ? `no service has the IP ${missing.ip}` : `no service is named ${JSON.stringify(missing.target)}`;
    throw new CommandError(`${what}; service IPs ${where}: ${[...known].join(', ') || 'none'}`, 'targetNotFound');
  }
  return selected;
}
