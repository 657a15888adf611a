// One service's convergence (MetalLB convergeBalancer): keeping, clearing, requests, skips and their events.
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { type AllocationResult, AllocatorState, allocateService, allocateServices } from '../../src/allocator';
import { PREFER_DUAL, ip, pool, selector, service } from './factories';

function summary(r: AllocationResult): string {
  if (r.status === 'assigned') return `${r.pool} ${r.ips.map(formatIP).join(',')} (${r.reason})`;
  if (r.status === 'failed') return `failed ${r.code}: ${r.error}`;
  return `skipped ${r.reason}`;
}

const base = pool('base', ['10.0.0.0/29']);
const other = pool('other', ['10.0.1.0/29']);

describe('keeping what a service holds', () => {
  it('keeps held addresses silently, even from an autoAssign=false pool', () => {
    const manual = pool('manual', ['10.0.2.0/30'], { autoAssign: false });
    const state = AllocatorState.create([base, manual]);
    const { result } = allocateService(state, service('a', { ingress: ['10.0.2.3'] }));
    expect(summary(result)).toBe('manual 10.0.2.3 (kept)');
    expect(result).toMatchObject({ events: [] });
  });

  it('prefers the state’s record over the status, and an explicit held list over both', () => {
    let state = AllocatorState.create([base]);
    state = allocateService(state, service('a', { ingress: ['10.0.0.5'] })).state;
    expect(summary(allocateService(state, service('a', { ingress: ['10.0.0.6'] })).result)).toBe('base 10.0.0.5 (kept)');
    expect(summary(allocateService(state, service('a'), { held: [] }).result)).toBe('base 10.0.0.0 (autoAssign)');
  });

  it('clears an address no pool holds any more, says why, and allocates anew', () => {
    const { result } = allocateService(AllocatorState.create([base]), service('a', { ingress: ['10.9.9.9'] }));
    expect(summary(result)).toBe('base 10.0.0.0 (autoAssign)');
    expect(result).toMatchObject({
      cleared: { reason: 'notAllowed', code: 'notAllowedInConfig', previous: [ip('10.9.9.9')] },
      events: [
        {
          type: 'Normal',
          reason: 'ClearAssignment',
          message:
            'current IP for "demo/a" not allowed by config, will attempt for new IP assignment: ["10.9.9.9"] is not allowed in config',
        },
        { type: 'Normal', reason: 'IPAllocated', message: 'Assigned IP ["10.0.0.0"]' },
      ],
    });
  });

  it('clears an address whose pool no longer admits the service', () => {
    const pinned = pool('pinned', ['10.0.3.0/30'], { serviceAllocation: { serviceSelectors: [selector({ tier: 'x' })] } });
    const { result } = allocateService(AllocatorState.create([base, pinned]), service('a', { ingress: ['10.0.3.1'] }));
    expect(summary(result)).toBe('base 10.0.0.0 (autoAssign)');
    expect(result).toMatchObject({ cleared: { reason: 'notAllowed', error: 'pool pinned not compatible for ip assignment' } });
  });

  it('moves to the annotated pool when it differs from the holding one', () => {
    const { result } = allocateService(AllocatorState.create([base, other]), service('a', { ingress: ['10.0.0.3'], addressPool: 'other' }));
    expect(summary(result)).toBe('other 10.0.1.0 (poolRequested)');
    expect(result).toMatchObject({ cleared: { reason: 'differentPoolRequested' } });
    expect(result.status === 'assigned' && result.events.map((e) => e.reason)).toEqual(['IPAllocated']);
  });

  it('moves to newly requested addresses; keeps requested ones in any order', () => {
    const state = AllocatorState.create([base]);
    const moved = allocateService(state, service('a', { ingress: ['10.0.0.3'], requestIPs: '10.0.0.4' })).result;
    expect(summary(moved)).toBe('base 10.0.0.4 (requested)');
    expect(moved).toMatchObject({ cleared: { reason: 'differentIPRequested' } });

    const dual = pool('dual', ['10.0.5.0/30', 'fc00::/126']);
    const kept = allocateService(
      AllocatorState.create([dual]),
      service('b', {
        ipFamilyPolicy: 'RequireDualStack',
        ipFamilies: ['IPv4', 'IPv6'],
        ingress: ['fc00::1', '10.0.5.1'],
        requestIPs: '10.0.5.1, fc00::1',
      }),
    ).result;
    expect(summary(kept)).toBe('dual fc00::1,10.0.5.1 (kept)');
  });

  it('clears addresses of the wrong family without an event', () => {
    const dual = pool('dual', ['10.0.5.0/30', 'fc00::/126']);
    const { result } = allocateService(AllocatorState.create([dual]), service('a', { ingress: ['fc00::1'] }));
    expect(summary(result)).toBe('dual 10.0.5.0 (autoAssign)');
    expect(result).toMatchObject({ cleared: { reason: 'familyChanged' } });
    // PreferDualStack dual services may hold one family.
    const prefer = allocateService(
      AllocatorState.create([pool('v6', ['fc00::/126'])]),
      service('b', { ...PREFER_DUAL, ingress: ['fc00::1'] }),
    );
    expect(summary(prefer.result)).toBe('v6 fc00::1 (kept)');
    expect(prefer.result).toMatchObject({
      events: [
        {
          reason: 'AdditionalAssignFailed',
          message: 'cannot assign additional IP in PreferDualStack: no available IPs in pool v6 for ipv4 IPFamily',
        },
      ],
    });
  });

  it('fails with LoadBalancerFailed when a holder’s request cannot be read, and releases it', () => {
    const state = AllocatorState.create([base]);
    const step = allocateService(state, service('a', { ingress: ['10.0.0.1'], requestIPs: '10.0.0.1', loadBalancerIP: '10.0.0.1' }));
    expect(step.result).toMatchObject({
      status: 'failed',
      code: 'invalidRequestedIPs',
      error: 'service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP',
      event: 'invalid requested loadbalancer IPs: service can not have both metallb.io/loadBalancerIPs and svc.Spec.LoadBalancerIP',
    });
    expect(step.state.allocation('demo/a')).toBeUndefined();
  });
});

describe('requests', () => {
  it('assigns spec.loadBalancerIP and the legacy annotation prefix', () => {
    const state = AllocatorState.create([base]);
    expect(summary(allocateService(state, service('a', { loadBalancerIP: '10.0.0.7' })).result)).toBe('base 10.0.0.7 (requested)');
    const legacy = service('b', { annotations: { 'metallb.universe.tf/loadBalancerIPs': '10.0.0.6' } });
    expect(summary(allocateService(state, legacy).result)).toBe('base 10.0.0.6 (requested)');
  });

  it('requires the requested addresses to lie in the annotated pool', () => {
    const { result } = allocateService(
      AllocatorState.create([base, other]),
      service('a', { requestIPs: '10.0.0.2', addressPool: 'other' }),
    );
    expect(summary(result)).toBe(
      'failed requestedPoolMismatch: requested loadBalancer IP(s) ["10.0.0.2"] is not compatible with requested address pool other',
    );
  });

  it('reports a port clash on a shared address with MetalLB’s text', () => {
    const { results } = allocateServices({
      pools: [base],
      services: [
        service('a', { requestIPs: '10.0.0.1', share: 'k', ports: [80] }),
        service('b', { requestIPs: '10.0.0.1', share: 'k', ports: ['TCP/80', 'UDP/53'] }),
      ],
    });
    expect(results.get('demo/b')).toMatchObject({
      code: 'portInUse',
      event: 'Failed to allocate IP for "demo/b": port TCP/80 is already in use on "10.0.0.1"',
    });
  });
});

describe('services the allocator does not handle', () => {
  it('skips non-LoadBalancer services and releases what they held', () => {
    let state = AllocatorState.create([base]);
    state = allocateService(state, service('a')).state;
    const step = allocateService(state, service('a', { type: 'ClusterIP' }));
    expect(step.result).toMatchObject({ status: 'skipped', reason: 'notLoadBalancer' });
    expect(step.state.allocation('demo/a')).toBeUndefined();
  });

  it('follows --lb-class: unset handles only unclassed services, set handles only that class', () => {
    const services = [
      service('plain'),
      service('mine', { loadBalancerClass: 'mlb.io/lb' }),
      service('theirs', { loadBalancerClass: 'x/y' }),
    ];
    const unset = allocateServices({ pools: [base], services }).results;
    expect([...unset.values()].map(summary)).toEqual([
      'skipped loadBalancerClass',
      'base 10.0.0.0 (autoAssign)',
      'skipped loadBalancerClass',
    ]);
    const set = allocateServices({ pools: [base], services, lbClass: 'mlb.io/lb' }).results;
    expect([...set.values()].map(summary)).toEqual([
      'base 10.0.0.0 (autoAssign)',
      'skipped loadBalancerClass',
      'skipped loadBalancerClass',
    ]);
  });

  it('fails every service when there are no pools', () => {
    const { results } = allocateServices({ pools: [], services: [service('a', { ingress: ['10.0.0.1'] })] });
    expect(results.get('demo/a')).toMatchObject({ status: 'failed', code: 'noPools' });
  });
});

describe('regressions found by the properties', () => {
  it('does not complete a requested PreferDualStack address with the other family (it would oscillate)', () => {
    const dual = pool('dual', ['10.0.0.0/30', 'fc00::/126']);
    const svc = service('f', { ...PREFER_DUAL, requestIPs: '10.0.0.2', ingress: ['10.0.0.2'] });
    const first = allocateService(AllocatorState.create([dual]), svc);
    expect(summary(first.result)).toBe('dual 10.0.0.2 (kept)');
    const again = allocateService(first.state, svc);
    expect(summary(again.result)).toBe('dual 10.0.0.2 (kept)');
  });
});
