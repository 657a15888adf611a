/** The TUI's row models (pure): one row per service IP, filters, and tables that fit any width. */
import { describe, expect, it } from 'vitest';
import {
  clusterHealth,
  conflictLines,
  filterRows,
  headerHeight,
  headerModel,
  memberTable,
  serviceRows,
  serviceTable,
  MARKER_WIDTH,
} from '../../../src/cli/tui/status-rows';
import { exampleSnapshot } from '../../daemon/control/fake-daemon';

describe('serviceRows', () => {
  it('gives each IP a row with its holders, age, health and alarms', () => {
    const rows = serviceRows(exampleSnapshot());
    expect(rows.map((r) => [r.service, r.ip, r.holders, r.since, r.health])).toEqual([
      ['demo/web', '192.168.10.200', 'node-a', '5m', '2/3 ok'],
      ['a-namespace-with-a-long-name/a-service-with-an-even-longer-name', 'fd00:10::1234:5678:9abc:def0', 'node-a,node-b', '2d2h', '-'],
      ['a-namespace-with-a-long-name/a-service-with-an-even-longer-name', '192.168.10.201', 'node-a,node-b', '2d2h', '-'],
      ['demo/nobody', null, 'NOBODY', '-', '-'],
    ]);
    expect(rows.map((r) => r.conflict)).toEqual([true, false, false, false]);
    expect(rows.map((r) => r.healthFailing)).toEqual([true, false, false, false]);
    expect(rows[3]).toMatchObject({ nobody: true, allocationProblem: 'poolExhausted: no available IPs in pool "small"' });
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });
});

describe('filterRows', () => {
  const rows = serviceRows(exampleSnapshot());
  it('keeps rows holding every word, in any field, whatever the case', () => {
    expect(filterRows(rows, 'WEB').map((r) => r.service)).toEqual(['demo/web']);
    expect(filterRows(rows, 'bgp node-b').map((r) => r.ip)).toEqual(['fd00:10::1234:5678:9abc:def0', '192.168.10.201']);
    expect(filterRows(rows, '10.201')).toHaveLength(1);
    expect(filterRows(rows, 'nobody')).toHaveLength(1);
    expect(filterRows(rows, 'web bgp')).toEqual([]);
    expect(filterRows(rows, '  ')).toEqual(rows);
  });
});

describe('tables', () => {
  it('never draw a line wider than the terminal, from 40 to 140 columns', () => {
    const s = exampleSnapshot();
    for (let width = 40; width <= 140; width++) {
      const services = serviceTable(serviceRows(s), width);
      const members = memberTable(s, width);
      const lines = [
        ...[services.header, ...services.lines].map((l) => ' '.repeat(MARKER_WIDTH) + l),
        members.header,
        ...members.lines,
        ...conflictLines(s, width),
      ];
      expect(
        lines.filter((l) => l.length > width),
        `width ${width}`,
      ).toEqual([]);
    }
  });

  it('cut names before an IP, and cut nothing when there is room', () => {
    const narrow = serviceTable(serviceRows(exampleSnapshot()), 80);
    expect(narrow.lines[1]).toMatch(/^a-namesp\S*… +fd00:10::1234:5678:9abc:def0 +bgp /);
    const wide = serviceTable(serviceRows(exampleSnapshot()), 200);
    expect(wide.lines.join('\n')).not.toContain('…');
    expect(memberTable(exampleSnapshot(), 80).states).toEqual(['suspect', 'alive', 'alive', 'dead']);
  });
});

describe('headerModel', () => {
  it('names in the header the members whose configuration differs, and counts them as a problem', () => {
    const s = exampleSnapshot();
    const model = headerModel({
      ...s,
      configAgreement: {
        digest: '0011223344556677',
        services: 3,
        awaiting: [],
        silent: [],
        retained: [],
        withheld: [],
        divergent: [{ node: 'node-b', digest: '8899aabbccddeeff', services: 2, lacks: ['demo/web'], extra: 0, message: '' }],
      },
    });
    expect(model.configDivergence).toBe('DIFFERS on node-b (2 services vs 3, lacks demo/web)');
    expect(model.health).toContain('1 config differs');
    expect(headerHeight(model, true)).toBe(headerHeight({ ...model, configDivergence: null }, true) + 1);
  });

  it('says what needs attention: suspect and dead members, conflicts, a stale configuration', () => {
    const model = headerModel(exampleSnapshot());
    expect(model).toMatchObject({
      node: 'node-a (mlb 0.1.0, up 2h20m)',
      cluster: '2/4 members alive',
      health: '1 suspect, 1 dead, 1 conflict',
      healthy: false,
      configStale: true,
    });
    expect(model.config).toBe('STALE /etc/mlb/mlb.yaml: the last good configuration keeps running');
    expect(model.configErrors).toHaveLength(1);
  });

  it('calls a cluster healthy when every member is alive and every IP held', () => {
    const s = exampleSnapshot();
    const healthy = {
      ...s,
      config: { ...s.config, state: 'ok' as const, errors: [] },
      members: s.members.map((m) => ({ ...m, state: 'alive' as const })),
      conflicts: [],
      services: s.services.filter((svc) => svc.ips.length > 0),
    };
    expect(headerModel(healthy)).toMatchObject({ health: 'healthy', healthy: true, config: 'ok /etc/mlb/mlb.yaml', configStale: false });
    const unheld = { ...healthy, services: healthy.services.map((svc) => ({ ...svc, owner: null, announcing: [] })) };
    expect(clusterHealth(unheld).problems).toEqual(['2 unheld']);
    expect(clusterHealth({ ...healthy, node: { ...healthy.node, gossip: { ...healthy.node.gossip, healthScore: 3 } } }).problems).toEqual([
      'slow to probe (score 3)',
    ]);
  });
});
