/** Event lines (pure): what each event says in the TUI, and which ones are alarms. */
import { describe, expect, it } from 'vitest';
import { clockTime, describeEvent, eventLine, formatMs } from '../../../src/cli/tui/event-text';
import type { DaemonEvent, DaemonEventBody } from '../../../src/daemon/daemon-events';

const at = '2024-05-01T10:04:05.000Z';
const ev = (body: DaemonEventBody, seq = 1) => ({ ...body, seq, at }) as DaemonEvent;

describe('describeEvent', () => {
  it('says who took an IP from whom and how long it was unheld', () => {
    expect(
      describeEvent(
        ev({
          type: 'ownerChanged',
          service: 'demo/web',
          protocol: 'layer2',
          ips: ['10.0.0.1'],
          from: ['node-a'],
          to: ['node-b'],
          unheldMs: 850,
        }),
      ),
    ).toEqual({ text: 'demo/web 10.0.0.1: node-a -> node-b (unheld 850 ms)', alarm: false });
    expect(
      describeEvent(
        ev({ type: 'ownerChanged', service: 'demo/web', protocol: 'layer2', ips: ['10.0.0.1'], from: ['node-a'], to: [], unheldMs: null }),
      ),
    ).toEqual({ text: 'demo/web 10.0.0.1: node-a -> nobody', alarm: true });
  });

  it("names the failure detector's share of a crashed owner's gap", () => {
    const crash = ev({
      type: 'ownerChanged',
      service: 'demo/web',
      protocol: 'layer2',
      ips: ['10.0.0.1'],
      from: ['node-a'],
      to: ['node-b'],
      unheldMs: 910,
      unheldReason: 'holderGone',
      detectionMs: 720,
    });
    expect(describeEvent(crash).text).toBe('demo/web 10.0.0.1: node-a -> node-b (unheld 910 ms, 720 ms to detect the failure)');
  });

  it('marks failures, conflicts, failing checks and stale configurations as alarms', () => {
    const alarms = (
      [
        { type: 'memberFailed', member: 'node-b' },
        { type: 'conflict', ip: '10.0.0.1', mac: '02:00:00:00:00:01', node: null, interface: 'eth0' },
        { type: 'healthChanged', service: 'demo/web', node: 'node-a', passing: false, detail: 'HTTP 503' },
        { type: 'configStale', file: '/etc/mlb/mlb.yaml', errors: ['/etc/mlb/mlb.yaml:3:1: bad'] },
      ] as DaemonEventBody[]
    ).map((b) => describeEvent(ev(b)));
    expect(alarms.every((a) => a.alarm)).toBe(true);
    expect(alarms.map((a) => a.text)).toEqual([
      'node-b failed (stopped answering gossip)',
      'CONFLICT 10.0.0.1 answered by 02:00:00:00:00:01 (not a member) on eth0',
      'demo/web on node-a: health check failing (HTTP 503)',
      'configuration STALE: /etc/mlb/mlb.yaml:3:1: bad',
    ]);
    const calm = (
      [
        { type: 'memberJoined', member: 'node-b' },
        { type: 'memberLeft', member: 'node-b' },
        { type: 'configReloaded', file: '/etc/mlb/mlb.yaml' },
        { type: 'drainChanged', draining: true },
        { type: 'conflictCleared', ip: '10.0.0.1', mac: '02:00:00:00:00:01', node: null, interface: 'eth0' },
      ] as DaemonEventBody[]
    ).map((b) => describeEvent(ev(b)));
    expect(calm.some((a) => a.alarm)).toBe(false);
  });

  it('shows an event type it does not know by its name', () => {
    expect(describeEvent({ seq: 1, at, type: 'bgpSessionUp' } as unknown as DaemonEvent)).toEqual({ text: 'bgpSessionUp', alarm: false });
  });
});

describe('eventLine', () => {
  it('starts with the local time and fits the width', () => {
    const line = eventLine(ev({ type: 'configStale', file: 'f', errors: ['x'.repeat(200)] }), 80);
    expect(line.text.startsWith(`${clockTime(at)} configuration STALE: xxx`)).toBe(true);
    expect(line.text).toHaveLength(80);
    expect(clockTime(at)).toMatch(/^\d\d:\d\d:05$/);
    expect(clockTime('garbage')).toBe('garbage');
  });

  it('reads failover times in milliseconds, long gaps in seconds', () => {
    expect([0, 849.6, 9_999, 10_000, 12_345].map(formatMs)).toEqual(['0 ms', '850 ms', '9999 ms', '10.0 s', '12.3 s']);
  });
});
