import { describe, expect, it } from 'vitest';
import { parseNeighbourJSON, parseNodeStatus, parseServiceOwnership } from '../../src/cli/lab/service-ownership';

describe("parseServiceOwnership: a daemon's /v1/snapshot", () => {
  const snapshot = JSON.stringify({
    apiVersion: 'mlb.io/v1',
    node: { name: 'node-1', draining: false, warmingUp: true, warmUpUntil: '2026-01-01T00:00:10Z' },
    services: [
      { service: 'demo/api', ips: ['172.31.213.210'], protocol: 'layer2', owner: 'node-3', announcing: ['node-3'] },
      {
        service: 'demo/web',
        ips: ['172.31.213.200'],
        protocol: 'layer2',
        owner: null,
        announcing: [],
        health: { checked: true, passing: ['node-2'], failing: ['node-1'] },
      },
    ],
  });

  it('finds the service by namespace/name with its IPs and owner', () => {
    expect(parseServiceOwnership(snapshot, 'demo/api')).toEqual({
      service: 'demo/api',
      ips: ['172.31.213.210'],
      owner: 'node-3',
      passing: [],
    });
    expect(parseServiceOwnership(snapshot, 'demo/web')).toEqual({
      service: 'demo/web',
      ips: ['172.31.213.200'],
      owner: null,
      passing: ['node-2'],
    });
    expect(parseServiceOwnership(snapshot, 'demo/none')).toBeUndefined();
  });

  it("reads the node's own warm-up and drain flags", () => {
    expect(parseNodeStatus(snapshot)).toEqual({
      name: 'node-1',
      draining: false,
      warmingUp: true,
      warmUpUntil: Date.UTC(2026, 0, 1, 0, 0, 10),
    });
    expect(parseNodeStatus(JSON.stringify({ node: { name: 'n', warmingUp: false, warmUpUntil: null } }))?.warmUpUntil).toBeUndefined();
  });

  it('answers undefined for anything that is not a snapshot (an error body, HTML, garbage)', () => {
    for (const text of ['', 'not json', '{"error":{"code":"internal","message":"x"}}', '{"services":{}}', '[]']) {
      expect(parseServiceOwnership(text, 'demo/web'), text).toBeUndefined();
      expect(parseNodeStatus(text), text).toBeUndefined();
    }
  });
});

describe('parseNeighbourJSON: `ip -j neigh show`', () => {
  // iproute2 6.1 output, one entry resolved, one failed.
  const output =
    '[{"dst":"172.31.213.200","dev":"eth0","lladdr":"02:6D:6C:62:00:12","state":["REACHABLE"]},' +
    '{"dst":"172.31.213.210","dev":"eth0","state":["FAILED"]}]';

  it('gives the MAC (lowercase) and state of the entry for the IP', () => {
    expect(parseNeighbourJSON(output, '172.31.213.200')).toEqual({ ip: '172.31.213.200', mac: '02:6d:6c:62:00:12', state: ['REACHABLE'] });
  });

  it('has no MAC for an unresolved entry, and nothing for an IP not in the table', () => {
    expect(parseNeighbourJSON(output, '172.31.213.210')).toEqual({ ip: '172.31.213.210', mac: undefined, state: ['FAILED'] });
    expect(parseNeighbourJSON(output, '172.31.213.211')).toBeUndefined();
    expect(parseNeighbourJSON('', '172.31.213.200')).toBeUndefined();
  });
});
