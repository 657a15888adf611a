// The outcomes a MetalLB v0.16 tutorial lab recorded (a specific address, a shared address and allocation
// errors): pool 192.168.10.200-192.168.10.220, hello-lb automatic, hello-a / hello-b sharing .210, and the
// three AllocationFailed texts.
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { type AllocationResult, allocateServices } from '../../src/allocator';
import { pool, service } from './factories';

const labPool = pool('default', ['192.168.10.200-192.168.10.220']);

function addresses(r: AllocationResult | undefined): string[] {
  if (r?.status !== 'assigned') throw new Error(`expected an assignment, got ${JSON.stringify(r)}`);
  return r.ips.map(formatIP);
}

describe("a MetalLB tutorial lab's pool", () => {
  const helloLb = service('hello-lb', { ports: [80], selector: { 'app.kubernetes.io/name': 'hello' } });
  const helloA = service('hello-a', {
    requestIPs: '192.168.10.210',
    share: 'hello-shared',
    ports: [8080],
    selector: { 'app.kubernetes.io/name': 'hello' },
  });
  const helloB = service('hello-b', {
    requestIPs: '192.168.10.210',
    share: 'hello-shared',
    ports: [8081],
    selector: { 'app.kubernetes.io/name': 'hello' },
  });

  it('gives hello-lb the first address and its IPAllocated event', () => {
    const { results } = allocateServices({ pools: [labPool], services: [helloLb] });
    const r = results.get('demo/hello-lb');
    expect(addresses(r)).toEqual(['192.168.10.200']);
    expect(r?.status === 'assigned' && r.events.map((e) => `${e.type} ${e.reason} ${e.message}`)).toEqual([
      'Normal IPAllocated Assigned IP ["192.168.10.200"]',
    ]);
  });

  it('lets hello-a and hello-b share 192.168.10.210 (same key, ports 8080 and 8081)', () => {
    const { results, usage } = allocateServices({ pools: [labPool], services: [helloLb, helloA, helloB] });
    expect(addresses(results.get('demo/hello-a'))).toEqual(['192.168.10.210']);
    expect(addresses(results.get('demo/hello-b'))).toEqual(['192.168.10.210']);
    expect(addresses(results.get('demo/hello-lb'))).toEqual(['192.168.10.200']);
    expect(results.get('demo/hello-a')).toMatchObject({ reason: 'requested', pool: 'default' });
    // A shared address counts once: 2 of 21 in use, 19 available (IPAddressPool status on the lab).
    expect(usage).toEqual([expect.objectContaining({ pool: 'default', total: 21n, inUse: 2, inUseIPv4: 2, availableIPv4: 19n })]);
  });

  it('reports the three AllocationFailed texts seen on the lab', () => {
    const fillers = Array.from({ length: 19 }, (_, i) => service(`filler-${String(i).padStart(2, '0')}`));
    const helloC = service('hello-c');
    const helloD = service('hello-d', { requestIPs: '192.168.10.230' });
    const helloE = service('hello-e', { addressPool: 'special' });
    // On the lab hello-lb already held .200 when the others were created.
    const holder = service('hello-lb', { ports: [80], ingress: ['192.168.10.200'] });
    const { results } = allocateServices({
      pools: [labPool],
      services: [holder, helloA, helloB, ...fillers, helloC, helloD, helloE],
    });
    expect(results.get('demo/hello-lb')).toMatchObject({ status: 'assigned', reason: 'kept', events: [] });
    expect(results.get('demo/hello-c')).toMatchObject({
      status: 'failed',
      code: 'noAvailableIPs',
      error: 'no available IPs',
      event: 'Failed to allocate IP for "demo/hello-c": no available IPs',
    });
    expect(results.get('demo/hello-d')).toMatchObject({
      status: 'failed',
      code: 'notAllowedInConfig',
      event: 'Failed to allocate IP for "demo/hello-d": ["192.168.10.230"] is not allowed in config',
    });
    expect(results.get('demo/hello-e')).toMatchObject({
      status: 'failed',
      code: 'unknownPool',
      event: 'Failed to allocate IP for "demo/hello-e": unknown pool "special"',
    });
    const failed = [...results.values()].find((r) => r.status === 'failed');
    expect(failed?.status === 'failed' && failed.events).toEqual([
      { type: 'Warning', reason: 'AllocationFailed', message: 'Failed to allocate IP for "demo/hello-c": no available IPs' },
    ]);
  });

  it('leaves a service of another loadBalancerClass alone, without an event', () => {
    const other = service('other', { loadBalancerClass: 'example.com/other-lb' });
    const { results, usage } = allocateServices({ pools: [labPool], services: [other] });
    expect(results.get('demo/other')).toMatchObject({ status: 'skipped', reason: 'loadBalancerClass' });
    expect(usage[0]?.inUse).toBe(0);
  });
});
