// parseHealthCheck: what a user writes on a Service, read into a probe plan, or refused with the annotation and a
// reason that says how to write it.
import { describe, expect, it } from 'vitest';
import { HEALTH_CHECK_DEFAULTS, parseHealthCheck } from '../../../src/daemon/health/health-check-spec';

const CHECK = 'mlb.io/health-check';

function spec(annotations: Record<string, string>) {
  const parsed = parseHealthCheck(annotations);
  if (!parsed.ok) throw new Error(`refused: ${JSON.stringify(parsed.errors)}`);
  return parsed.spec;
}

function errors(annotations: Record<string, string>) {
  const parsed = parseHealthCheck(annotations);
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(parsed.spec)}`);
  return parsed.errors;
}

describe('parseHealthCheck targets', () => {
  it('has no check without the annotation, or with an empty one, whatever else the Service carries', () => {
    expect(parseHealthCheck({})).toEqual({ ok: true, spec: undefined });
    expect(parseHealthCheck({ [CHECK]: '  ', 'metallb.io/address-pool': 'x' })).toEqual({ ok: true, spec: undefined });
  });

  it('reads tcp://HOST:PORT with the documented defaults', () => {
    expect(spec({ [CHECK]: 'tcp://127.0.0.1:8080' })).toEqual({
      kind: 'tcp',
      target: 'tcp://127.0.0.1:8080',
      host: '127.0.0.1',
      port: 8080,
      intervalMs: 1000,
      timeoutMs: 1000,
      rise: 2,
      fall: 2,
    });
    expect(HEALTH_CHECK_DEFAULTS).toMatchObject({ intervalMs: 1000, timeoutMs: 1000, rise: 2, fall: 2 });
  });

  it('takes bracketed IPv6, host names, a trailing slash and an upper-case scheme', () => {
    expect(spec({ [CHECK]: 'tcp://[::1]:5432' })).toMatchObject({ host: '::1', port: 5432 });
    expect(spec({ [CHECK]: 'tcp://localhost:22/' })).toMatchObject({ host: 'localhost', port: 22 });
    expect(spec({ [CHECK]: 'TCP://10.0.0.1:1' })).toMatchObject({ kind: 'tcp', host: '10.0.0.1', port: 1 });
  });

  it('reads http:// with port 80 and path / by default, and keeps the query', () => {
    expect(spec({ [CHECK]: 'http://127.0.0.1' })).toMatchObject({
      kind: 'http',
      host: '127.0.0.1',
      port: 80,
      path: '/',
      url: 'http://127.0.0.1:80/',
    });
    expect(spec({ [CHECK]: 'http://[::1]:8080/healthz?full=1' })).toMatchObject({
      host: '::1',
      port: 8080,
      path: '/healthz?full=1',
      url: 'http://[::1]:8080/healthz?full=1',
    });
    expect(spec({ [CHECK]: 'http://web.local:81?x' })).toMatchObject({ host: 'web.local', port: 81, path: '/?x' });
  });

  it('splits exec: into argv without a shell; quotes keep spaces, $ and | stay literal', () => {
    expect(spec({ [CHECK]: 'exec:/usr/bin/dig +short @127.0.0.1 \'health check\' "a b"c $HOME|x' })).toMatchObject({
      kind: 'exec',
      argv: ['/usr/bin/dig', '+short', '@127.0.0.1', 'health check', 'a bc', '$HOME|x'],
    });
    expect(spec({ [CHECK]: 'exec:/bin/true' })).toMatchObject({ argv: ['/bin/true'] });
  });

  it.each([
    ['tpc://127.0.0.1:80', 'unsupported scheme "tpc" (did you mean "tcp"?)'],
    ['https://127.0.0.1/', 'https is not supported'],
    ['127.0.0.1:8080', 'a port is checked with tcp://127.0.0.1:8080'],
    ['/usr/local/bin/check', 'a program is written exec:/usr/local/bin/check'],
    ['tcp://127.0.0.1', 'no port: tcp://HOST:PORT'],
    ['tcp://127.0.0.1:0', 'invalid port "0": must be between 1 and 65535'],
    ['tcp://127.0.0.1:65536', 'invalid port "65536"'],
    ['tcp://127.0.0.1:http', 'invalid port "http"'],
    ['tcp://::1:80', 'an IPv6 address is written in brackets: tcp://[::1]:8080'],
    ['tcp://[fe80::zz]:80', 'invalid IPv6 address "fe80::zz"'],
    ['tcp://999.1.1.1:80', 'invalid IPv4 address "999.1.1.1"'],
    ['tcp://under_score:80', 'invalid host "under_score"'],
    ['tcp://127.0.0.1:80/path', 'a tcp:// check has no path'],
    ['http://u:p@127.0.0.1/', 'credentials in the address are not supported'],
    ['http://127.0.0.1/a b', 'percent-encode'],
    ['http://127.0.0.1/caf\u00e9', 'non-ASCII characters; percent-encode them'],
    ['http://127.0.0.1/#top', 'a fragment'],
    ['exec:', 'names no program'],
    ['exec:check --quick', '"check" is not an absolute path (no shell and no PATH lookup run the check): exec:/usr/local/bin/check'],
    ['exec:/bin/check "unterminated', 'unterminated " quote'],
    [`exec:/bin/x ${'a '.repeat(70)}`, 'more than 64 words'],
    [`http://127.0.0.1/${'a'.repeat(2100)}`, 'longer than 2048 characters'],
  ])('refuses %s: %s', (target, fragment) => {
    const found = errors({ [CHECK]: target });
    expect(found).toHaveLength(1);
    expect(found[0]?.annotation).toBe(CHECK);
    expect(found[0]?.message).toContain(fragment);
    expect(found[0]?.message).toContain(`invalid ${CHECK} "${target.trim()}"`);
  });
});

describe('parseHealthCheck timing', () => {
  const base = { [CHECK]: 'tcp://127.0.0.1:8080' };

  it('reads Go durations and counts', () => {
    expect(
      spec({
        ...base,
        'mlb.io/health-check-interval': '1m30s',
        'mlb.io/health-check-timeout': '1.5s',
        'mlb.io/health-check-rise': '5',
        'mlb.io/health-check-fall': ' 100 ',
      }),
    ).toMatchObject({ intervalMs: 90_000, timeoutMs: 1500, rise: 5, fall: 100 });
  });

  it('caps the default timeout at a shorter interval instead of refusing the interval', () => {
    expect(spec({ ...base, 'mlb.io/health-check-interval': '300ms' })).toMatchObject({ intervalMs: 300, timeoutMs: 300 });
    expect(spec({ ...base, 'mlb.io/health-check-interval': '1h' })).toMatchObject({ intervalMs: 3_600_000, timeoutMs: 1000 });
  });

  it.each([
    ['mlb.io/health-check-interval', '99ms', 'must be between 100ms and 1h'],
    ['mlb.io/health-check-interval', '61m', 'must be between 100ms and 1h'],
    ['mlb.io/health-check-interval', '-1s', 'must be between 100ms and 1h'],
    ['mlb.io/health-check-interval', '5', 'missing unit'],
    ['mlb.io/health-check-timeout', '9ms', 'must be between 10ms and 1h'],
    ['mlb.io/health-check-timeout', '2s', 'is longer than the interval (1000 ms)'],
    ['mlb.io/health-check-rise', '0', 'must be a whole number between 1 and 100'],
    ['mlb.io/health-check-fall', '101', 'must be a whole number between 1 and 100'],
    ['mlb.io/health-check-fall', '2.5', 'must be a whole number'],
    ['mlb.io/health-check-rise', 'two', 'must be a whole number'],
  ])('refuses %s "%s"', (annotation, value, fragment) => {
    const found = errors({ ...base, [annotation]: value });
    expect(found).toEqual([{ annotation, message: expect.stringContaining(fragment) }]);
  });

  it('does not blame the timeout for an interval that is itself wrong', () => {
    const found = errors({ ...base, 'mlb.io/health-check-interval': '1x', 'mlb.io/health-check-timeout': '5s' });
    expect(found.map((e) => e.annotation)).toEqual(['mlb.io/health-check-interval']);
  });

  it('reports every problem at once, each on its own annotation', () => {
    const found = errors({
      [CHECK]: 'ftp://x',
      'mlb.io/health-check-rise': '0',
      'mlb.io/health-check-fall': '0',
      'mlb.io/health-chek-fall': '3',
    });
    expect(found.map((e) => e.annotation).sort()).toEqual(
      [CHECK, 'mlb.io/health-check-fall', 'mlb.io/health-check-rise', 'mlb.io/health-chek-fall'].sort(),
    );
    expect(found.find((e) => e.annotation === 'mlb.io/health-chek-fall')?.message).toBe(
      'unknown annotation mlb.io/health-chek-fall (did you mean "mlb.io/health-check-fall"?)',
    );
  });

  it('refuses options that would do nothing because the check itself is missing', () => {
    expect(errors({ 'mlb.io/health-check-interval': '2s' })).toEqual([
      {
        annotation: 'mlb.io/health-check-interval',
        message: 'mlb.io/health-check-interval has no effect without mlb.io/health-check',
      },
    ]);
  });

  it('leaves other mlb.io/ annotations to their owners', () => {
    expect(parseHealthCheck({ ...base, 'mlb.io/subnets': '10.0.0.0/24', 'mlb.io/other': 'x' }).ok).toBe(true);
  });
});
