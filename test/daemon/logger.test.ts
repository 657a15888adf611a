/**
 * The daemon's logs: JSON lines with MetalLB's field names where a program reads them, a short coloured line
 * where a person does (a terminal), and --log-level deciding what is written. The last tests run the built
 * `mlb daemon` under a pseudo-terminal (script(1)) and on a pipe, as a user would see it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, formatPrettyLine } from '../../src/daemon/logger';
import { MLB_BUNDLE, REPO_ROOT } from '../cli/run-cli';

function collector(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

const ESC = '\u001b[';

describe('JSON lines', () => {
  it('carry level as a word, ts, msg, the event and its fields, and the base fields', () => {
    const { stream, lines } = collector();
    const log = createLogger({ destination: stream, base: { node: 'node-a' } });
    log.info(
      { event: 'serviceWithdrawn', service: 'demo/web', ip: '192.168.1.240', reason: 'notOwner', protocol: 'layer2' },
      'withdrawing 192.168.1.240 for demo/web: notOwner',
    );
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record).toMatchObject({
      level: 'info',
      node: 'node-a',
      event: 'serviceWithdrawn',
      service: 'demo/web',
      ip: '192.168.1.240',
      reason: 'notOwner',
      msg: 'withdrawing 192.168.1.240 for demo/web: notOwner',
    });
    expect(new Date(record.ts as string).toISOString()).toBe(record.ts);
    expect(record).not.toHaveProperty('time');
    expect(record).not.toHaveProperty('pid');
  });

  it('--log-level: debug lines only at debug, errors always', () => {
    const info = collector();
    const atInfo = createLogger({ destination: info.stream });
    atInfo.debug({ event: 'gossip' }, 'probe');
    atInfo.error({ event: 'vipBindFailed' }, 'cannot bind');
    expect(info.lines.map((l) => JSON.parse(l).event)).toEqual(['vipBindFailed']);
    const debug = collector();
    const atDebug = createLogger({ destination: debug.stream, level: 'debug' });
    atDebug.debug({ event: 'gossip' }, 'probe');
    expect(debug.lines.map((l) => JSON.parse(l).level)).toEqual(['debug']);
    const error = collector();
    createLogger({ destination: error.stream, level: 'error' }).warn({ event: 'x' }, 'y');
    expect(error.lines).toEqual([]);
  });

  it('stay JSON on any stream that is not the terminal stdout, unless pretty is asked for', () => {
    const plain = collector();
    createLogger({ destination: plain.stream }).info({ event: 'configLoaded' }, 'configuration loaded');
    expect(() => JSON.parse(plain.lines[0]!)).not.toThrow();
    const pretty = collector();
    createLogger({ destination: pretty.stream, pretty: true, color: false }).info(
      { event: 'configLoaded', services: 3 },
      'configuration loaded',
    );
    expect(pretty.lines).toHaveLength(1);
    expect(pretty.lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} info  configLoaded {7}configuration loaded {2}services=3$/);
  });
});

describe('the terminal line', () => {
  const record = {
    level: 'warn',
    ts: '2024-05-01T08:21:04.120Z',
    node: 'node-a',
    event: 'noInterfaceInVipSubnet',
    msg: 'no interface has a subnet containing 192.168.1.240',
    ip: '192.168.1.240',
    interfaces: ['eth0', 'eth1'],
    note: 'two words',
    empty: '',
  };

  it('reads time of day, level, event, message, then the other fields (node left out, spaces quoted)', () => {
    expect(formatPrettyLine(record, { color: false })).toBe(
      '08:21:04.120 warn  noInterfaceInVipSubnet no interface has a subnet containing 192.168.1.240  ip=192.168.1.240 interfaces=["eth0","eth1"] note="two words" empty=""',
    );
  });

  it('colours the level by severity only when asked', () => {
    const coloured = formatPrettyLine(record, { color: true });
    expect(coloured).toContain(`${ESC}33mwarn `);
    expect(formatPrettyLine({ ...record, level: 'error' }, { color: true })).toContain(`${ESC}31m${ESC}1merror`);
    expect(formatPrettyLine(record, { color: false })).not.toContain(ESC);
  });

  it('puts a stack on its own indented lines', () => {
    const text = formatPrettyLine(
      {
        level: 'error',
        ts: '2024-05-01T08:21:04.120Z',
        event: 'recomputeFailed',
        msg: 'failed',
        error: 'Error: boom\n    at f (x.ts:1:1)',
      },
      { color: false },
    );
    expect(text.split('\n')).toEqual([
      '08:21:04.120 error recomputeFailed    failed',
      'error:',
      '    Error: boom',
      '        at f (x.ts:1:1)',
    ]);
  });
});

describe('mlb daemon output', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mlb-logger-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const hasScript = spawnSync('script', ['--version']).status === 0;
  const port = 30_000 + (process.pid % 20_000);
  // It warns about plain-text gossip, then stops on the missing configuration file: a short run with a log line.
  const args = [
    MLB_BUNDLE,
    'daemon',
    '--config',
    join(dir, 'missing.yaml'),
    '--gossip-bind',
    `127.0.0.1:${port}`,
    '--state-dir',
    join(dir, 'state'),
    '--control-socket',
    join(dir, 'mlb.sock'),
    '--no-announce',
  ];

  it('writes JSON lines on a pipe', () => {
    if (!existsSync(MLB_BUNDLE)) throw new Error(`${MLB_BUNDLE} is missing: run "npm run build" first`);
    const run = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(run.status).toBe(1);
    const first = JSON.parse(run.stdout.split('\n')[0]!) as Record<string, unknown>;
    expect(first).toMatchObject({ level: 'warn', event: 'gossipUnencrypted' });
  });

  it.skipIf(!hasScript)('writes coloured human lines on a terminal, plain ones with NO_COLOR', () => {
    const command = [process.execPath, ...args].map((a) => `'${a}'`).join(' ');
    const { NO_COLOR: _ignored, ...inherited } = process.env;
    const inTerminal = (env: Record<string, string>) =>
      spawnSync('script', ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...inherited, ...env } }).stdout;
    const coloured = inTerminal({});
    const warn = coloured.split(/\r?\n/).find((l) => l.includes('gossipUnencrypted'));
    expect(warn).toBeDefined();
    expect(warn).not.toMatch(/^\{/);
    expect(warn).toContain(`${ESC}33mwarn`);
    const plain = inTerminal({ NO_COLOR: '1' })
      .split(/\r?\n/)
      .find((l) => l.includes('gossipUnencrypted'));
    expect(plain).toMatch(/^\d\d:\d\d:\d\d\.\d{3} warn  gossipUnencrypted +no --gossip-key-file/);
  });
});
