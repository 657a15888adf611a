/**
 * The mlb.io/health-check annotations of a v1 Service, read into a HealthCheckSpec (docs/architecture.md, "Health
 * checks (file mode)"). On a plain host no proxy forwards traffic, so a node may hold a service IP only while its
 * own check of the service passes. Pure: the same function validates the file (`mlb validate`) and gives the
 * daemon its probe plan, so what validates is exactly what runs. It lives in model/ rather than daemon/ because
 * the configuration parser needs it and pure layers do not import the daemon; src/daemon/health re-exports it.
 *
 *   mlb.io/health-check:          tcp://HOST:PORT | http://HOST[:PORT][/PATH] | exec:/ABSOLUTE/PATH [ARGS]
 *   mlb.io/health-check-interval  Go duration, default 1s
 *   mlb.io/health-check-timeout   Go duration, default min(1s, interval), at most the interval
 *   mlb.io/health-check-rise      consecutive passes to pass again, default 2
 *   mlb.io/health-check-fall      consecutive failures to fail, default 2
 */
import { parseIP } from '../../ip';
import {
  MLB_HEALTH_CHECK_ANNOTATION,
  MLB_HEALTH_CHECK_FALL_ANNOTATION,
  MLB_HEALTH_CHECK_INTERVAL_ANNOTATION,
  MLB_HEALTH_CHECK_RISE_ANNOTATION,
  MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION,
} from '../well-known';
import { didYouMean } from './did-you-mean';
import { parseDuration } from './duration';

/** When and how often to probe, and how many results in a row change the verdict. */
export interface HealthCheckTiming {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly rise: number;
  readonly fall: number;
}

export type HealthCheckSpec = HealthCheckTiming &
  /** Passes when a TCP connection is accepted. `host` is unbracketed ("::1"). */
  (
    | { readonly kind: 'tcp'; readonly target: string; readonly host: string; readonly port: number }
    /** Passes on a 2xx answer to GET `url`; redirects are not followed, the body is ignored. */
    | {
        readonly kind: 'http';
        readonly target: string;
        readonly host: string;
        readonly port: number;
        readonly path: string;
        readonly url: string;
      }
    /** Passes when the program exits 0. No shell, no PATH lookup: argv[0] is an absolute path. */
    | { readonly kind: 'exec'; readonly target: string; readonly argv: readonly string[] }
  );

export interface HealthCheckProblem {
  /** The annotation whose value is wrong (its position is where `mlb validate` points). */
  readonly annotation: string;
  readonly message: string;
}

export type HealthCheckParse =
  | { readonly ok: true; readonly spec: HealthCheckSpec | undefined }
  | { readonly ok: false; readonly errors: readonly HealthCheckProblem[] };

const HEALTH_CHECK_LIMITS = {
  /** Faster probing buys little (the VIP still moves by gossip) and turns a sick service into a probe storm. */
  minIntervalMs: 100,
  /** A check slower than this no longer protects anything; it is almost certainly a unit mistake ("1h" meant "1s"?). */
  maxIntervalMs: 3_600_000,
  /** Below this even a local connect or a fork can miss its deadline on a busy host. */
  minTimeoutMs: 10,
  minCount: 1,
  /** rise/fall: 100 at the 1 h maximum interval is already four days; more is a typo. */
  maxCount: 100,
  /** The whole mlb.io/health-check value; it travels in logs and `mlb explain`. */
  maxTargetLength: 2048,
  /** exec: program plus arguments. */
  maxExecArgs: 64,
  portMin: 1,
  portMax: 65535,
} as const;

export const HEALTH_CHECK_DEFAULTS = {
  /** One probe a second notices a dead service within fall x 1 s = 2 s, well before memberlist (LAN profile,
   * 1 s probes, suspicion multiplier 4) declares a dead host, and costs one connect a second per service. */
  intervalMs: 1_000,
  /** Probes of one service never overlap, so a timeout above the interval would stretch the interval (and the
   * fall x interval promise) silently; 1 s, capped at the interval when that is shorter. */
  timeoutMs: 1_000,
  /** Two passes before taking the VIP back: one lucky answer of a flapping service does not pull traffic to it
   * (haproxy's default rise is 2 as well). */
  rise: 2,
  /** Two failures before giving the VIP away: a single lost SYN or a GC pause does not move an IP, and the VIP
   * still leaves within fall x interval = 2 s (haproxy uses fall 3 at a 2 s interval, 6 s: too slow for a VIP). */
  fall: 2,
} as const;

const HEALTH_CHECK_OPTION_ANNOTATIONS = [
  MLB_HEALTH_CHECK_INTERVAL_ANNOTATION,
  MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION,
  MLB_HEALTH_CHECK_RISE_ANNOTATION,
  MLB_HEALTH_CHECK_FALL_ANNOTATION,
] as const;

const ALL_ANNOTATIONS: readonly string[] = [MLB_HEALTH_CHECK_ANNOTATION, ...HEALTH_CHECK_OPTION_ANNOTATIONS];
/** Keys under this prefix that are not ours are typos of ours ("mlb.io/health-check-intervall"). */
const TYPO_PREFIX = 'mlb.io/health';
const FORMS = 'tcp://HOST:PORT, http://HOST[:PORT][/PATH] or exec:/ABSOLUTE/PATH [ARGS]';
const SCHEMES = ['tcp', 'http', 'exec'] as const;
/** RFC 1123 host names (what a resolver accepts); numeric-only names are treated as broken IPv4 addresses. */
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?)*$/i;

type Step<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };
const fail = (message: string): { ok: false; message: string } => ({ ok: false, message });

/** Reads a Service's annotations; `spec` is undefined when the Service has no (or an empty) health check. */
export function parseHealthCheck(annotations: Readonly<Record<string, string>>): HealthCheckParse {
  const errors: HealthCheckProblem[] = [];
  const report = (annotation: string, message: string): void => {
    errors.push({ annotation, message });
  };
  for (const key of Object.keys(annotations)) {
    if (key.startsWith(TYPO_PREFIX) && !ALL_ANNOTATIONS.includes(key)) {
      report(key, `unknown annotation ${key}${didYouMean(key, ALL_ANNOTATIONS)}`);
    }
  }
  const text = (annotations[MLB_HEALTH_CHECK_ANNOTATION] ?? '').trim();
  if (text === '') {
    for (const option of HEALTH_CHECK_OPTION_ANNOTATIONS) {
      if (annotations[option] !== undefined) report(option, `${option} has no effect without ${MLB_HEALTH_CHECK_ANNOTATION}`);
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, spec: undefined };
  }
  const target = parseTarget(text);
  if (!target.ok) report(MLB_HEALTH_CHECK_ANNOTATION, `invalid ${MLB_HEALTH_CHECK_ANNOTATION} "${text}": ${target.message}`);
  const timing = parseTiming(annotations, report);
  if (errors.length > 0 || !target.ok || !timing) return { ok: false, errors };
  return { ok: true, spec: { ...target.value, ...timing } };
}

// ------------------------------------------------------------------------------------------ the target

type Target =
  | { kind: 'tcp'; target: string; host: string; port: number }
  | { kind: 'http'; target: string; host: string; port: number; path: string; url: string }
  | { kind: 'exec'; target: string; argv: string[] };

function parseTarget(text: string): Step<Target> {
  if (text.length > HEALTH_CHECK_LIMITS.maxTargetLength) {
    return fail(`longer than ${HEALTH_CHECK_LIMITS.maxTargetLength} characters`);
  }
  if (/^exec:/i.test(text)) return parseExec(text, text.slice('exec:'.length));
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1];
  if (scheme === undefined) return fail(missingScheme(text));
  const rest = text.slice(scheme.length + 3);
  switch (scheme.toLowerCase()) {
    case 'tcp':
      return parseTcp(text, rest);
    case 'http':
      return parseHttp(text, rest);
    case 'https':
      return fail('https is not supported (mlb checks the service on this host; use http:// or tcp://)');
    default:
      return fail(`unsupported scheme "${scheme}"${didYouMean(scheme, SCHEMES)}: use ${FORMS}`);
  }
}

function missingScheme(text: string): string {
  if (text.startsWith('/')) return `no scheme: a program is written exec:${text}`;
  if (/^[^\s/]+:\d+$/.test(text)) return `no scheme: a port is checked with tcp://${text}`;
  return `no scheme: use ${FORMS}`;
}

function parseTcp(text: string, rest: string): Step<Target> {
  const authority = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (/[/?#]/.test(authority)) return fail('a tcp:// check has no path: tcp://HOST:PORT');
  const hostPort = parseHostPort(authority, undefined, 'tcp');
  if (!hostPort.ok) return hostPort;
  return { ok: true, value: { kind: 'tcp', target: text, ...hostPort.value } };
}

/** The HTTP default port (RFC 9110 section 4.2.1). */
const HTTP_DEFAULT_PORT = 80;

function parseHttp(text: string, rest: string): Step<Target> {
  const pathAt = rest.search(/[/?#]/);
  const authority = pathAt < 0 ? rest : rest.slice(0, pathAt);
  let path = pathAt < 0 ? '/' : rest.slice(pathAt);
  if (path.startsWith('?')) path = `/${path}`;
  if (path.includes('#')) return fail('a fragment (#...) is never sent to the server; remove it');
  // Only printable ASCII goes on a request line as written (Node refuses the rest when sending).
  if (/[^\x21-\x7e]/.test(path)) return fail('the path contains spaces, control or non-ASCII characters; percent-encode them');
  const hostPort = parseHostPort(authority, HTTP_DEFAULT_PORT, 'http');
  if (!hostPort.ok) return hostPort;
  const { host, port } = hostPort.value;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
  return { ok: true, value: { kind: 'http', target: text, host, port, path, url } };
}

function parseHostPort(authority: string, defaultPort: number | undefined, scheme: string): Step<{ host: string; port: number }> {
  if (authority.includes('@')) return fail('credentials in the address are not supported');
  let host: string;
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return fail('unterminated "[" in the address');
    host = authority.slice(1, close);
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) return fail(`unexpected "${after}" after the IPv6 address`);
    portText = after === '' ? undefined : after.slice(1);
    if (!host.includes(':') || parseIP(host) === undefined) return fail(`invalid IPv6 address "${host}"`);
  } else {
    const colons = authority.split(':').length - 1;
    if (colons > 1) return fail(`an IPv6 address is written in brackets: ${scheme}://[::1]:8080`);
    const colon = authority.indexOf(':');
    host = colon < 0 ? authority : authority.slice(0, colon);
    portText = colon < 0 ? undefined : authority.slice(colon + 1);
    if (host === '') return fail('no host');
    if (/^[0-9.]+$/.test(host) && parseIP(host) === undefined) return fail(`invalid IPv4 address "${host}"`);
    if (!HOSTNAME.test(host)) return fail(`invalid host "${host}"`);
  }
  if (portText === undefined || portText === '') {
    if (defaultPort === undefined) return fail(`no port: ${scheme}://HOST:PORT`);
    return { ok: true, value: { host, port: defaultPort } };
  }
  const { portMin, portMax } = HEALTH_CHECK_LIMITS;
  const port = /^[0-9]{1,6}$/.test(portText) ? Number(portText) : NaN;
  if (!(port >= portMin && port <= portMax)) return fail(`invalid port "${portText}": must be between ${portMin} and ${portMax}`);
  return { ok: true, value: { host, port } };
}

function parseExec(text: string, command: string): Step<Target> {
  const words = splitWords(command);
  if (!words.ok) return words;
  const argv = words.value;
  const program = argv[0];
  if (program === undefined) return fail('exec: names no program: exec:/ABSOLUTE/PATH [ARGS]');
  if (!program.startsWith('/')) {
    return fail(
      `"${program}" is not an absolute path (no shell and no PATH lookup run the check): exec:/usr/local/bin/${program.split('/').pop() ?? program}`,
    );
  }
  if (argv.length > HEALTH_CHECK_LIMITS.maxExecArgs) return fail(`more than ${HEALTH_CHECK_LIMITS.maxExecArgs} words`);
  return { ok: true, value: { kind: 'exec', target: text, argv } };
}

/**
 * Words separated by white space; '...' and "..." keep spaces inside one word, without escapes. No shell runs
 * the check, so $VAR, globs, pipes and redirections are passed to the program literally.
 */
function splitWords(command: string): Step<string[]> {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (c === '"' || c === "'") {
      const end = command.indexOf(c, i + 1);
      if (end < 0) return fail(`unterminated ${c} quote`);
      word = (word ?? '') + command.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return { ok: true, value: words };
}

// ------------------------------------------------------------------------------------------ timing

function parseTiming(
  annotations: Readonly<Record<string, string>>,
  report: (annotation: string, message: string) => void,
): HealthCheckTiming | undefined {
  const { minIntervalMs, maxIntervalMs, minTimeoutMs } = HEALTH_CHECK_LIMITS;
  const interval = readDuration(annotations, MLB_HEALTH_CHECK_INTERVAL_ANNOTATION, minIntervalMs, maxIntervalMs, report);
  const intervalMs = interval ?? HEALTH_CHECK_DEFAULTS.intervalMs;
  const timeout = readDuration(annotations, MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION, minTimeoutMs, maxIntervalMs, report);
  if (typeof timeout === 'number' && interval !== null && timeout > intervalMs) {
    report(
      MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION,
      `${MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION} "${annotations[MLB_HEALTH_CHECK_TIMEOUT_ANNOTATION]}" is longer than the interval (${intervalMs} ms): probes never overlap, so the timeout must be at most the interval`,
    );
  }
  const rise = readCount(annotations, MLB_HEALTH_CHECK_RISE_ANNOTATION, report);
  const fall = readCount(annotations, MLB_HEALTH_CHECK_FALL_ANNOTATION, report);
  if (interval === null || timeout === null || rise === null || fall === null) return undefined;
  return {
    intervalMs,
    timeoutMs: timeout ?? Math.min(HEALTH_CHECK_DEFAULTS.timeoutMs, intervalMs),
    rise: rise ?? HEALTH_CHECK_DEFAULTS.rise,
    fall: fall ?? HEALTH_CHECK_DEFAULTS.fall,
  };
}

/** Milliseconds (rounded to whole ones), undefined when not set, null when wrong (reported). */
function readDuration(
  annotations: Readonly<Record<string, string>>,
  annotation: string,
  min: number,
  max: number,
  report: (annotation: string, message: string) => void,
): number | undefined | null {
  const text = annotations[annotation];
  if (text === undefined) return undefined;
  const parsed = parseDuration(text.trim());
  if (!parsed.ok) {
    report(annotation, `invalid duration "${text}" for ${annotation}: ${parsed.reason} (write e.g. "1s" or "500ms")`);
    return null;
  }
  const ms = Math.round(parsed.milliseconds);
  if (ms < min || ms > max) {
    report(annotation, `${annotation} "${text}" must be between ${formatMs(min)} and ${formatMs(max)}`);
    return null;
  }
  return ms;
}

function readCount(
  annotations: Readonly<Record<string, string>>,
  annotation: string,
  report: (annotation: string, message: string) => void,
): number | undefined | null {
  const text = annotations[annotation];
  if (text === undefined) return undefined;
  const { minCount, maxCount } = HEALTH_CHECK_LIMITS;
  const n = /^[0-9]{1,4}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(n >= minCount && n <= maxCount)) {
    report(annotation, `${annotation} "${text}" must be a whole number between ${minCount} and ${maxCount}`);
    return null;
  }
  return n;
}

function formatMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 1_000 === 0) return `${ms / 1_000}s`;
  return `${ms}ms`;
}
