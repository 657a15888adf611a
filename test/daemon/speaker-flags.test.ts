/**
 * The drain flag (src/daemon/speaker-flags.ts with drain-record.ts) on a real temporary --state-dir: a damaged or
 * unreadable drain.json keeps the node drained and the log names the file and how to clear it; a drain or undrain
 * that cannot be written rejects and changes nothing, in memory or on disk, and leaves no temporary file.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpeakerFlags } from '../../src/daemon/speaker-flags';
import { DRAIN_FILE, decideDrainAtStart } from '../../src/daemon/drain-record';
import { temporaryPathFor } from '../../src/daemon/state-dir';
import { type Log } from '../../src/runtime/log';

interface Line {
  level: string;
  fields: Record<string, unknown>;
  msg?: string;
}

function recorder(): { logger: Log; lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, msg?: string) =>
    lines.push({ level, fields: fields as Record<string, unknown>, ...(msg === undefined ? {} : { msg }) });
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

let dir: string;
let drainFile: string;
const flagsToClose: SpeakerFlags[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mlb-flags-'));
  drainFile = join(dir, DRAIN_FILE);
});
afterEach(async () => {
  for (const f of flagsToClose.splice(0)) await f.markCleanStop();
  rmSync(dir, { recursive: true, force: true });
});

async function load(onChange: () => void = () => undefined): Promise<{ flags: SpeakerFlags; lines: Line[] }> {
  const { logger, lines } = recorder();
  const flags = await SpeakerFlags.load(dir, Date.now(), logger, onChange);
  flagsToClose.push(flags);
  return { flags, lines };
}

const onDisk = (): unknown => JSON.parse(readFileSync(drainFile, 'utf8'));
/** What the state directory holds besides drain.json and the restart history. */
const strayFiles = (): string[] => readdirSync(dir).filter((n) => n !== DRAIN_FILE && n !== 'restarts.json');

describe('drain.json at start', () => {
  it('no file: never drained, takes part', async () => {
    const { flags } = await load();
    expect(flags.isDrained).toBe(false);
  });

  it('a drain survives a restart, an undrain too', async () => {
    const first = await load();
    expect(await first.flags.setDrained(true)).toBe(true);
    expect(onDisk()).toMatchObject({ drained: true });
    expect((await load()).flags.isDrained).toBe(true);
    await first.flags.setDrained(false);
    expect((await load()).flags.isDrained).toBe(false);
  });

  it('records who asked with the drain, and knows it again after a restart', async () => {
    const first = await load();
    expect(await first.flags.setDrained(true, { requestedBy: 'node-1', seq: 1_764_579_600_000 })).toBe(true);
    expect(onDisk()).toMatchObject({ drained: true, requestedBy: 'node-1', seq: 1_764_579_600_000 });
    const { flags, lines } = await load();
    expect(flags.isDrained).toBe(true);
    expect(flags.appliedRequest).toEqual({ requestedBy: 'node-1', seq: 1_764_579_600_000 });
    expect(lines.find((l) => l.fields.event === 'drainRecordDamaged')).toBeUndefined();
    // A request that does not change the state is still recorded: its replay must be known as one.
    expect(await flags.setDrained(true, { requestedBy: 'node-3', seq: 1_764_579_600_500 })).toBe(false);
    expect(onDisk()).toMatchObject({ drained: true, requestedBy: 'node-3' });
  });

  it('logs who asked when the state changes', async () => {
    const { flags, lines } = await load();
    await flags.setDrained(true, { requestedBy: 'node-1', seq: 1 });
    expect(lines.find((l) => l.fields.event === 'nodeDrained')).toMatchObject({
      level: 'info',
      fields: { requestedBy: 'node-1' },
      msg: 'drained (asked by node-1): handing every IP to other nodes',
    });
  });

  it.each([
    ['torn by a crash mid-write on an old mlb', '{"drained": tr'],
    ['hand-edited into something else', '{"drained": "yes"}'],
    ['empty', ''],
  ])('damaged (%s): stays drained, and the log names the file and how to clear it', async (_why, text) => {
    writeFileSync(drainFile, text);
    const { flags, lines } = await load();
    expect(flags.isDrained).toBe(true);
    expect(flags.draining).toBe(true);
    const line = lines.find((l) => l.fields.event === 'drainRecordDamaged');
    expect(line).toMatchObject({ level: 'error', fields: { file: drainFile, reason: 'recordDamaged' } });
    expect(line?.msg).toContain(`${drainFile} is damaged`);
    expect(line?.msg).toContain('staying drained');
    expect(line?.msg).toContain('`mlb undrain` rewrites it');
    expect(line?.msg).toContain('remove the file');
  });

  it('unreadable (a directory where the file should be): stays drained, and says so', async () => {
    mkdirSync(drainFile);
    const { flags, lines } = await load();
    expect(flags.isDrained).toBe(true);
    expect(lines.find((l) => l.fields.event === 'drainRecordDamaged')?.msg).toMatch(
      new RegExp(`^cannot read ${drainFile} \\(EISDIR.*\\): staying drained`),
    );
  });

  it('decides from what was read, naming the file (pure)', () => {
    expect(decideDrainAtStart('/s/drain.json', { kind: 'missing' })).toMatchObject({ drained: false, code: 'noRecord' });
    expect(
      decideDrainAtStart('/s/drain.json', { kind: 'text', text: '{"drained":false,"since":"2026-12-01T10:00:00.000Z"}' }),
    ).toMatchObject({ drained: false, code: 'recorded' });
    expect(
      decideDrainAtStart('/s/drain.json', { kind: 'text', text: '{"drained":true,"since":"2026-12-01T10:00:00.000Z"}' }),
    ).toMatchObject({
      drained: true,
      code: 'recorded',
      reason: 'this node was drained on 2026-12-01T10:00:00.000Z: it takes no IPs until `mlb undrain`',
    });
    expect(decideDrainAtStart('/s/drain.json', { kind: 'text', text: '{"drained":false}' })).toMatchObject({
      drained: false,
      code: 'recorded',
      reason: 'this node was undrained',
    });
    expect(decideDrainAtStart('/s/drain.json', { kind: 'text', text: '[true]' })).toMatchObject({ drained: true, code: 'recordDamaged' });
    expect(decideDrainAtStart('/s/drain.json', { kind: 'unreadable', error: 'EACCES: permission denied' })).toMatchObject({
      drained: true,
      code: 'recordUnreadable',
      recordFaulty: true,
    });
  });
});

describe('clearing a damaged record', () => {
  it('`mlb undrain` rewrites it and the node takes part again', async () => {
    writeFileSync(drainFile, '{ not json');
    const onChange = vi.fn();
    const { flags } = await load(onChange);
    expect(await flags.setDrained(false)).toBe(true);
    expect(flags.isDrained).toBe(false);
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onDisk()).toMatchObject({ drained: false });
  });

  it('`mlb drain` keeps the node drained and rewrites it, so the next start reads a good record', async () => {
    writeFileSync(drainFile, '{ not json');
    const { flags } = await load();
    expect(await flags.setDrained(true)).toBe(false);
    expect(onDisk()).toMatchObject({ drained: true });
    const again = await load();
    expect(again.flags.isDrained).toBe(true);
    expect(again.lines.some((l) => l.fields.event === 'drainRecordDamaged')).toBe(false);
  });
});

describe('a drain or undrain that cannot be written changes nothing', () => {
  it('open fails (as on a read-only state directory): rejects, still drained in memory and on disk, no change event', async () => {
    const first = await load();
    await first.flags.setDrained(true);
    const onChange = vi.fn();
    const { flags } = await load(onChange);
    const before = readFileSync(drainFile, 'utf8');
    // Root writes through mode bits; a directory where the temporary file goes makes open() fail for anyone.
    mkdirSync(temporaryPathFor(drainFile));
    const failed = flags.setDrained(false);
    await expect(failed).rejects.toMatchObject({ code: 'drainNotRecorded' });
    await expect(failed).rejects.toThrow(
      new RegExp(`^cannot record the undrain in ${drainFile} \\(EISDIR.*\\): nothing changed, this node is still drained$`),
    );
    expect(flags.isDrained).toBe(true);
    expect(flags.draining).toBe(true);
    expect(onChange).not.toHaveBeenCalled();
    expect(readFileSync(drainFile, 'utf8')).toBe(before);
  });

  it('rename fails: rejects, nothing changed, and no temporary file is left behind', async () => {
    mkdirSync(drainFile);
    writeFileSync(join(drainFile, 'x'), '');
    const { flags } = await load();
    await expect(flags.setDrained(false)).rejects.toMatchObject({ code: 'drainNotRecorded' });
    expect(flags.isDrained).toBe(true);
    expect(strayFiles()).toEqual([]);
  });

  it('a drain on an undrained node that cannot be written: still taking part', async () => {
    const { flags } = await load();
    mkdirSync(temporaryPathFor(drainFile));
    await expect(flags.setDrained(true)).rejects.toThrow(/nothing changed, this node is still taking part in elections$/);
    expect(flags.isDrained).toBe(false);
  });
});

it('drains and undrains asked at once run one after another: the last one asked is in memory and on disk', async () => {
  const { flags } = await load();
  const results = await Promise.all([flags.setDrained(true), flags.setDrained(false), flags.setDrained(true), flags.setDrained(true)]);
  expect(results).toEqual([true, true, true, false]);
  expect(flags.isDrained).toBe(true);
  expect(onDisk()).toMatchObject({ drained: true });
  expect(strayFiles()).toEqual([]);
});
