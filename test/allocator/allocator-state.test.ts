// AllocatorState.assign / unassign / withPools: MetalLB's Assign, Unassign and SetPools, case by case
// (the sequence follows MetalLB's TestAssignment in internal/allocator/allocator_test.go).
import { describe, expect, it } from 'vitest';
import { formatIP } from '../../src/ip';
import { type AllocationSubject, AllocatorState, type Port } from '../../src/allocator';
import { ip, ips, pool, selector } from './factories';

function subject(
  key: string,
  options: { ports?: string[]; sharing?: string; backend?: string; labels?: Record<string, string> } = {},
): AllocationSubject {
  const [namespace = ''] = key.split('/');
  const ports: Port[] = (options.ports ?? []).map((p) => {
    const [protocol, port] = p.split('/');
    return { protocol: protocol as string, port: Number(port) };
  });
  return {
    key,
    namespace,
    labels: options.labels ?? {},
    ports,
    sharingKey: { sharing: options.sharing ?? '', backend: options.backend ?? '' },
  };
}

function must(step: ReturnType<AllocatorState['assign']>): AllocatorState {
  if (!step.ok) throw new Error(`unexpected failure: ${step.error.message}`);
  return step.state;
}

function errorOf(step: ReturnType<AllocatorState['assign']>): string {
  if (step.ok) throw new Error('expected a failure');
  return `${step.error.code}: ${step.error.message}`;
}

const pools = [
  pool('test', ['1.2.3.4/31', '1000::4/127']),
  pool('buggy', ['1.2.4.0/24'], { avoidBuggyIPs: true }),
  pool('pinned', ['1.2.5.0/24'], { serviceAllocation: { namespaces: ['ns1'] } }),
  pool('team', ['1.2.6.0/24'], { serviceAllocation: { serviceSelectors: [selector({ team: 'metallb' })] } }),
];

describe('AllocatorState.assign (MetalLB Assign)', () => {
  const empty = AllocatorState.create(pools);

  it('assigns idempotently and refuses a second unshared user', () => {
    let s = must(empty.assign(subject('a/s1'), [ip('1.2.3.4')]));
    s = must(s.assign(subject('a/s1'), [ip('1.2.3.4')]));
    expect(s.allocation('a/s1')).toMatchObject({ pool: 'test', ips: [ip('1.2.3.4')] });
    expect(errorOf(s.assign(subject('a/s2'), [ip('1.2.3.4')]))).toBe(
      `sharingKeyConflict: can't change sharing key for "a/s2", address also in use by a/s1`,
    );
    s = must(s.assign(subject('a/s2'), [ip('1.2.3.5')]));
    // Unassign frees the address for the other service.
    s = s.unassign('a/s1');
    s = must(s.assign(subject('a/s2'), [ip('1.2.3.4')]));
    expect(s.allocation('a/s2')?.ips.map(formatIP)).toEqual(['1.2.3.4']);
    expect(s.addressUse(ip('1.2.3.5'))).toBeUndefined();
    // The old state is untouched: states are immutable.
    expect(empty.allocation('a/s1')).toBeUndefined();
  });

  it('refuses .0 and .255 of an avoidBuggyIPs pool as not allowed', () => {
    expect(errorOf(empty.assign(subject('a/s3'), [ip('1.2.4.0')]))).toBe('notAllowedInConfig: ["1.2.4.0"] is not allowed in config');
    expect(errorOf(empty.assign(subject('a/s3'), [ip('1.2.4.255')]))).toBe('notAllowedInConfig: ["1.2.4.255"] is not allowed in config');
    expect(empty.assign(subject('a/s3'), [ip('1.2.4.254')]).ok).toBe(true);
  });

  it('shares with the same key and backend and distinct ports only', () => {
    let s = must(empty.assign(subject('a/s4', { ports: ['TCP/80'], sharing: 'sharing', backend: 'b' }), [ip('1.2.4.3')]));
    // Sole user changes its key in place.
    s = must(s.assign(subject('a/s4', { ports: ['TCP/80'], sharing: 'share', backend: 'b' }), [ip('1.2.4.3')]));
    expect(errorOf(s.assign(subject('a/s3', { ports: ['TCP/80'], sharing: 'share', backend: 'b' }), [ip('1.2.4.3')]))).toBe(
      'portInUse: port TCP/80 is already in use on "1.2.4.3"',
    );
    expect(errorOf(s.assign(subject('a/s3', { ports: ['TCP/443'], sharing: 'other', backend: 'b' }), [ip('1.2.4.3')]))).toMatch(
      /^sharingKeyConflict/,
    );
    expect(errorOf(s.assign(subject('a/s3', { ports: ['TCP/443'], sharing: 'share', backend: 'x' }), [ip('1.2.4.3')]))).toMatch(
      /^sharingKeyConflict/,
    );
    s = must(s.assign(subject('a/s3', { ports: ['TCP/443'], sharing: 'share', backend: 'b' }), [ip('1.2.4.3')]));
    // A user may change its own ports; not its key while someone else shares the address.
    s = must(s.assign(subject('a/s3', { ports: ['UDP/53'], sharing: 'share', backend: 'b' }), [ip('1.2.4.3')]));
    expect(errorOf(s.assign(subject('a/s3', { ports: ['UDP/53'], sharing: 'other', backend: 'b' }), [ip('1.2.4.3')]))).toBe(
      `sharingKeyConflict: can't change sharing key for "a/s3", address also in use by a/s4`,
    );
    expect(s.addressUse(ip('1.2.4.3'))?.users.map((u) => u.service)).toEqual(['a/s3', 'a/s4']);
    // When one user leaves the other keeps the address.
    s = s.unassign('a/s4');
    expect(s.addressUse(ip('1.2.4.3'))?.users.map((u) => u.service)).toEqual(['a/s3']);
  });

  it('lists every other user, sorted, in the sharing conflict text', () => {
    let s = must(empty.assign(subject('b/x', { ports: ['TCP/1'], sharing: 'k' }), [ip('1.2.3.4')]));
    s = must(s.assign(subject('a/y', { ports: ['TCP/2'], sharing: 'k' }), [ip('1.2.3.4')]));
    expect(errorOf(s.assign(subject('c/z', { ports: ['TCP/3'] }), [ip('1.2.3.4')]))).toBe(
      `sharingKeyConflict: can't change sharing key for "c/z", address also in use by a/y,b/x`,
    );
  });

  it('checks dual-stack shape and pool membership', () => {
    expect(must(empty.assign(subject('a/d'), ips('1.2.3.4', '1000::4'))).allocation('a/d')?.pool).toBe('test');
    expect(errorOf(empty.assign(subject('a/d'), ips('1.2.3.4', '1.2.3.5')))).toBe('sameFamily: "1.2.3.4" "1.2.3.5" has the same family');
    // Both addresses must be in one pool.
    expect(errorOf(empty.assign(subject('a/d'), ips('1.2.3.4', '1000::1')))).toBe(
      'notAllowedInConfig: ["1.2.3.4" "1000::1"] is not allowed in config',
    );
    expect(errorOf(empty.assign(subject('a/d'), []))).toBe('notAllowedInConfig: [] is not allowed in config');
  });

  it('checks serviceAllocation: namespaces and service selectors', () => {
    expect(errorOf(empty.assign(subject('ns2/s'), [ip('1.2.5.1')]))).toBe(
      'poolNotCompatible: pool pinned not compatible for ip assignment',
    );
    expect(empty.assign(subject('ns1/s'), [ip('1.2.5.1')]).ok).toBe(true);
    expect(empty.assign(subject('x/s'), [ip('1.2.6.1')]).ok).toBe(false);
    expect(empty.assign(subject('x/s', { labels: { team: 'metallb' } }), [ip('1.2.6.1')]).ok).toBe(true);
  });
});

describe('AllocatorState.withPools (MetalLB SetPools)', () => {
  it('keeps allocations a pool still holds, moves renamed ones and drops the rest', () => {
    let s = AllocatorState.create([pool('a', ['10.0.0.0/24']), pool('b', ['10.0.1.0/24'])]);
    s = must(s.assign(subject('n/keep'), [ip('10.0.0.1')]));
    s = must(s.assign(subject('n/move'), [ip('10.0.1.1')]));
    s = must(s.assign(subject('n/drop'), [ip('10.0.1.200')]));
    const report = s.withPools([pool('a', ['10.0.0.0/24']), pool('c', ['10.0.1.0/25'])]);
    expect(report.dropped).toEqual(['n/drop']);
    expect(report.moved).toEqual(['n/move']);
    expect(report.state.allocation('n/move')?.pool).toBe('c');
    expect(report.state.allocation('n/keep')?.pool).toBe('a');
    expect(report.state.addressUse(ip('10.0.1.200'))).toBeUndefined();
    expect(report.state.usage().map((u) => [u.pool, u.inUse])).toEqual([
      ['a', 1],
      ['c', 1],
    ]);
  });
});
