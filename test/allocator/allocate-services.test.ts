// The batch: processing order, `previous`, and what a whole configuration comes to.
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { type AllocationResult, BatchPhase, addressesOf, allocateServices, batchPhase, planService } from '../../src/allocator';
import { ip, pool, service } from './factories';

function summary(r: AllocationResult | undefined): string {
  if (r === undefined) return 'missing';
  if (r.status === 'assigned') return `${r.ips.map(formatIP).join(',')} (${r.reason}${r.cleared ? `, cleared ${r.cleared.reason}` : ''})`;
  if (r.status === 'failed') return `failed ${r.code}`;
  return `skipped ${r.reason}`;
}

const p = pool('p', ['10.0.0.0/30']);

describe('batch order', () => {
  it('classifies services into phases', () => {
    expect(batchPhase(planService(service('a', { requestIPs: '10.0.0.1' }), [ip('10.0.0.1')]))).toBe(BatchPhase.heldAsRequested);
    expect(batchPhase(planService(service('a', { requestIPs: '10.0.0.1' }), [ip('10.0.0.2')]))).toBe(BatchPhase.requesting);
    expect(batchPhase(planService(service('a', { requestIPs: 'bogus' }), []))).toBe(BatchPhase.requesting);
    expect(batchPhase(planService(service('a'), [ip('10.0.0.2')]))).toBe(BatchPhase.holding);
    expect(batchPhase(planService(service('a', { addressPool: 'p' }), []))).toBe(BatchPhase.fresh);
  });

  it('lets an explicit request win over an automatic holder, which moves', () => {
    const { results } = allocateServices({
      pools: [p],
      services: [service('holder', { ingress: ['10.0.0.0'] }), service('wants', { requestIPs: '10.0.0.0' })],
    });
    expect(summary(results.get('demo/wants'))).toBe('10.0.0.0 (requested)');
    expect(summary(results.get('demo/holder'))).toBe('10.0.0.1 (autoAssign, cleared notAllowed)');
    expect(results.get('demo/holder')).toMatchObject({
      cleared: { code: 'sharingKeyConflict', error: `can't change sharing key for "demo/holder", address also in use by demo/wants` },
    });
  });

  it('keeps an established explicit holder against a newer request for the same address', () => {
    const { results } = allocateServices({
      pools: [p],
      services: [service('b-old', { requestIPs: '10.0.0.2', ingress: ['10.0.0.2'] }), service('a-new', { requestIPs: '10.0.0.2' })],
    });
    expect(summary(results.get('demo/b-old'))).toBe('10.0.0.2 (kept)');
    expect(summary(results.get('demo/a-new'))).toBe('failed sharingKeyConflict');
  });

  it('keeps every holder before allocating anything new, even for earlier names', () => {
    const { results } = allocateServices({
      pools: [p],
      services: [service('z-holder', { ingress: ['10.0.0.0'] }), service('a-new')],
    });
    expect(summary(results.get('demo/z-holder'))).toBe('10.0.0.0 (kept)');
    expect(summary(results.get('demo/a-new'))).toBe('10.0.0.1 (autoAssign)');
  });

  it('re-allocates a cleared holder only after the other holders kept theirs', () => {
    const { results } = allocateServices({
      pools: [p],
      services: [service('a-lost', { ingress: ['192.0.2.1'] }), service('b-holder', { ingress: ['10.0.0.0'] })],
    });
    expect(summary(results.get('demo/b-holder'))).toBe('10.0.0.0 (kept)');
    expect(summary(results.get('demo/a-lost'))).toBe('10.0.0.1 (autoAssign, cleared notAllowed)');
  });

  it('reads `previous` before the status and returns results in key order', () => {
    const services = [service('b', { ingress: ['10.0.0.3'] }), service('a')];
    const previous = new Map([['demo/b', [ip('10.0.0.2')]]]);
    const { results } = allocateServices({ pools: [p], services, previous });
    expect([...results.keys()]).toEqual(['demo/a', 'demo/b']);
    expect(summary(results.get('demo/b'))).toBe('10.0.0.2 (kept)');
    expect(summary(results.get('demo/a'))).toBe('10.0.0.0 (autoAssign)');
    expect(addressesOf(results)).toEqual(
      new Map([
        ['demo/a', [ip('10.0.0.0')]],
        ['demo/b', [ip('10.0.0.2')]],
      ]),
    );
  });

  it('refuses a service listed twice', () => {
    expect(() => allocateServices({ pools: [p], services: [service('a'), service('a')] })).toThrow(/listed twice/);
  });
});
