/**
 * A strict reader of the Prometheus text format (version 0.0.4) for tests: every line must be a HELP, a TYPE,
 * empty, or a sample of a family declared above it, so a test that reads a value also proves the page parses.
 */
export interface ExpoSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly help: ReadonlyMap<string, string>;
  readonly type: ReadonlyMap<string, string>;
  readonly samples: readonly ExpoSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP_LINE = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE_LINE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/;
/** Sample names a histogram family owns. */
const HISTOGRAM_SUFFIXES = ['_bucket', '_sum', '_count'];

export function parseExposition(text: string): Exposition {
  const help = new Map<string, string>();
  const type = new Map<string, string>();
  const samples: ExpoSample[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line === '') continue;
    const h = HELP_LINE.exec(line);
    if (h) {
      help.set(h[1]!, h[2]!);
      continue;
    }
    const t = TYPE_LINE.exec(line);
    if (t) {
      type.set(t[1]!, t[2]!);
      continue;
    }
    const s = SAMPLE_LINE.exec(line);
    if (!s) throw new Error(`line ${i + 1} is not Prometheus text format: ${line}`);
    const name = s[1]!;
    const family = type.has(name)
      ? name
      : HISTOGRAM_SUFFIXES.map((x) => (name.endsWith(x) ? name.slice(0, -x.length) : '')).find((f) => type.get(f) === 'histogram');
    if (!family) throw new Error(`line ${i + 1}: sample of ${name} before its # TYPE`);
    samples.push({ name, labels: parseLabels(s[2] ?? '', i + 1), value: parseValue(s[3]!, i + 1) });
  }
  return { help, type, samples };
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const m = LABEL.exec(rest);
    if (!m) throw new Error(`line ${line}: bad labels {${text}}`);
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
  }
  return labels;
}

function parseValue(text: string, line: number): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (text === 'NaN' || !Number.isNaN(value)) return value;
  throw new Error(`line ${line}: bad value ${text}`);
}

/** The samples of one metric name whose labels include `labels`. */
export function samplesOf(expo: Exposition, name: string, labels: Record<string, string> = {}): ExpoSample[] {
  return expo.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/** The one value of a metric with exactly these labels, undefined when absent. */
export function valueOf(expo: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = expo.samples.filter((s) => s.name === name && sameLabels(s.labels, labels));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} appears ${found.length} times`);
  return found[0]?.value;
}

function sameLabels(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}
