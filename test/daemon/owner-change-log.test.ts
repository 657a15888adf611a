// How a decision's owner changes reach the log (src/daemon/owner-change-log.ts): every move on its own line, first
// holders one by one only up to a limit, then counted in one line, so a start with thousands of services does not
// write thousands of lines.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/daemon/logger';
import { FIRST_HOLDER_INFO_LINES, logOwnerChanges, ownerChangeLog } from '../../src/daemon/owner-change-log';
import type { OwnerChange, UnheldReason } from '../../src/daemon/owner-history';
import type { OwnerChangeReport } from '../../src/daemon/speaker-plan';

function report(i: number, to: string[], unheldReason: UnheldReason, from: string[] = []): OwnerChangeReport {
  const change: OwnerChange = {
    service: `demo/svc-${i}`,
    protocol: 'layer2',
    ips: [`192.0.2.${i}`],
    from,
    to,
    unheldMs: 0,
    unheldReason,
    detectionMs: null,
  };
  return { change, message: `demo/svc-${i}: ${from.join(',') || 'nobody'} -> ${to.join(',')}` };
}

describe('ownerChangeLog', () => {
  it('logs a few first holders one by one and nothing else', () => {
    const reports = [report(1, ['node-a'], 'firstHolder'), report(2, ['node-b'], 'firstHolder')];
    expect(ownerChangeLog(reports)).toEqual({ info: reports, debug: [] });
  });

  it('counts first holders past the limit by holder, and keeps every move at info', () => {
    const first = Array.from({ length: 50 }, (_, i) => report(i, [i % 3 === 0 ? 'node-a' : 'node-b'], 'firstHolder'));
    const moves = [report(100, ['node-b'], 'holderGone', ['node-c']), report(101, ['node-a'], 'handedOver', ['node-c'])];
    const log = ownerChangeLog([...first.slice(0, 30), moves[0]!, ...first.slice(30), moves[1]!]);
    expect(log.info).toEqual([...first.slice(0, FIRST_HOLDER_INFO_LINES), moves[0], moves[1]]);
    expect(log.debug).toEqual(first.slice(FIRST_HOLDER_INFO_LINES));
    const rest = first.slice(FIRST_HOLDER_INFO_LINES);
    const onA = rest.filter((r) => r.change.to[0] === 'node-a').length;
    expect(log.summary?.services).toBe(30);
    expect(log.summary?.byHolder).toEqual({ 'node-a': onA, 'node-b': 30 - onA });
    expect(log.summary?.message).toBe(
      `30 more services got their first holder (node-a ${onA}, node-b ${30 - onA}); each is logged at debug level, and \`mlb status\` shows every owner`,
    );
  });

  it('names several BGP holders together', () => {
    const reports = Array.from({ length: 3 }, (_, i) => report(i, ['node-a', 'node-b'], 'firstHolder'));
    expect(ownerChangeLog(reports, 1).summary?.byHolder).toEqual({ 'node-a,node-b': 2 });
  });

  it('writes the counted first holders as one firstHolders line at info, each of them at debug', () => {
    const written = (level: 'info' | 'debug') => {
      const lines: Record<string, unknown>[] = [];
      const destination = new Writable({
        write(chunk, _encoding, done) {
          for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      });
      const reports = Array.from({ length: 25 }, (_, i) => report(i, ['node-a'], 'firstHolder'));
      logOwnerChanges(createLogger({ level, destination, pretty: false }), [...reports, report(99, ['node-b'], 'holderGone', ['node-a'])]);
      return lines.map((l) => `${String(l.level)} ${String(l.event)} ${String(l.service ?? l.services)}`);
    };
    const info = written('info');
    expect(info).toHaveLength(FIRST_HOLDER_INFO_LINES + 2);
    expect(info.slice(-2)).toEqual(['info ownerChanged demo/svc-99', 'info firstHolders 5']);
    expect(written('debug').filter((l) => l.startsWith('debug ownerChanged'))).toHaveLength(5);
  });
});
