/** The pure parts of the CLI habits: argv shortcuts, -o against --json, and the --watch line forms. */
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { expandArgvShortcuts } from '../../src/cli/argv-shortcuts';
import { STDIN_ARGUMENT } from '../../src/cli/config-argument';
import { UsageError } from '../../src/cli/exit-codes';
import { outputFormat } from '../../src/cli/output-format';
import { beforeWatch, watchLine } from '../../src/cli/status-watch';
import type { DaemonEvent } from '../../src/daemon/daemon-events';

describe('argv shortcuts', () => {
  it('mlb alone is --help; --version and -v without a command are `version`, other flags kept', () => {
    expect(expandArgvShortcuts([])).toEqual(['--help']);
    expect(expandArgvShortcuts(['--version'])).toEqual(['version']);
    expect(expandArgvShortcuts(['--json', '-v'])).toEqual(['version', '--json']);
    // After a command, -v is that command's business (and refused by yargs where it means nothing).
    expect(expandArgvShortcuts(['validate', '-v'])).toEqual(['validate', '-v']);
  });

  it('a lone - survives yargs as the standard-input argument', () => {
    expect(expandArgvShortcuts(['validate', '-', '--json'])).toEqual(['validate', STDIN_ARGUMENT, '--json']);
  });
});

describe('-o and --json', () => {
  it('agree or are refused', () => {
    expect(outputFormat({})).toBe('text');
    expect(outputFormat({ json: true })).toBe('json');
    expect(outputFormat({ json: true, output: 'json' })).toBe('json');
    expect(outputFormat({ output: 'wide' })).toBe('wide');
    expect(() => outputFormat({ json: true, output: 'wide' })).toThrow(UsageError);
    expect(() => outputFormat({ output: ['json', 'yaml'] })).toThrow('-o was given 2 times');
  });
});

describe('--watch lines', () => {
  const event = { seq: 7, at: '2026-01-02T03:04:05.678Z', type: 'memberFailed', member: 'node-b' } as DaemonEvent;

  it('text: time, type, what happened; json: the event on one line; yaml: one document', () => {
    expect(watchLine(event, 'text')).toBe('2026-01-02T03:04:05.678Z memberFailed node-b failed (stopped answering gossip)\n');
    expect(watchLine(event, 'json')).toBe(`${JSON.stringify(event)}\n`);
    expect(parseYaml(watchLine(event, 'yaml').replace(/^---\n/, ''))).toEqual(event);
  });

  it("skips only events older than the watch by the daemon's clock; an unreadable time is printed", () => {
    expect(beforeWatch(event, '2026-01-02T03:04:05.679Z')).toBe(true);
    expect(beforeWatch(event, '2026-01-02T03:04:05.678Z')).toBe(false);
    expect(beforeWatch({ ...event, at: 'garbage' }, '2026-01-02T03:04:05.679Z')).toBe(false);
  });
});
