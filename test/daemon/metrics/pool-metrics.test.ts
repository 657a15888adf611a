/**
 * The numbers behind metallb_allocator_*: capacity as MetalLB counts it (avoidBuggyIPs, huge CIDRs), and use
 * counted per distinct address and family, from the addresses services hold.
 */
import { describe, expect, it } from 'vitest';
import { poolMetrics } from '../../../src/daemon/metrics';
import { MAX_INT64 } from '../../../src/allocator';
import { ip, pool } from '../../allocator/factories';

describe('poolMetrics', () => {
  it('counts a shared address once, each family apart, and the services holding addresses', () => {
    const [m] = poolMetrics(
      [pool('p', ['10.0.0.0/30', 'fd00::/127'])],
      new Map([
        ['a/one', { ips: [ip('10.0.0.1')], pool: 'p' }],
        ['a/two', { ips: [ip('10.0.0.1')], pool: 'p' }],
        ['a/dual', { ips: [ip('10.0.0.2'), ip('fd00::1')], pool: 'p' }],
        ['a/none', { ips: [], pool: 'p' }],
      ]),
    );
    expect(m).toEqual({ pool: 'p', total: 6n, totalIPv4: 4n, totalIPv6: 2n, inUse: 3, inUseIPv4: 2, inUseIPv6: 1, servicesAllocated: 3 });
  });

  it('leaves out .0 and .255 with avoidBuggyIPs, saturates a huge IPv6 CIDR at MaxInt64', () => {
    const [buggy, huge] = poolMetrics([pool('buggy', ['10.0.0.0/24'], { avoidBuggyIPs: true }), pool('huge', ['fd00::/64'])], new Map());
    expect(buggy!.total).toBe(254n);
    expect(huge!.totalIPv6).toBe(MAX_INT64);
    expect(huge!.inUse).toBe(0);
  });

  it('lists every configured pool in order; addresses without a pool count where they lie, those of a deleted pool nowhere', () => {
    const out = poolMetrics(
      [pool('b', ['10.0.1.0/31']), pool('a', ['10.0.2.0/31'])],
      new Map([
        ['x/gone', { ips: [ip('10.9.9.9')], pool: 'deleted' }],
        ['x/requested', { ips: [ip('10.0.2.1')] }],
        ['x/outside', { ips: [ip('192.0.2.1')] }],
      ]),
    );
    expect(out.map((m) => [m.pool, m.inUse, m.servicesAllocated])).toEqual([
      ['b', 0, 0],
      ['a', 1, 1],
    ]);
  });
});
