// The objects the controller keeps beside Services: IPAddressPool status counters, the ConfigurationState
// `controller`, the running configuration when a new one is invalid, and the memberlist Secret.
import { describe, expect, it } from 'vitest';
import { poolStatusWrites } from '../../src/controller/pool-status';
import { stringifyWithInt64 } from '../../src/controller/json-int64';
import {
  configurationStateStatus,
  newConfigurationState,
  poolCondition,
  sameConfigurationState,
} from '../../src/controller/configuration-state';
import { chooseConfiguration } from '../../src/controller/configuration-choice';
import { memberlistSecretDecision } from '../../src/controller/memberlist-secret';
import { Cluster, pool, snapshotOf, svc } from './api-fixtures';

const NOW = '2026-12-01T23:40:00Z';

describe('IPAddressPool status', () => {
  const snapshot = snapshotOf(
    pool('buggy', ['192.0.2.0/24'], '  avoidBuggyIPs: true') + pool('huge', ['2001:db8::/64', '198.51.100.0/30']),
  );
  const apiPool = (name: string, status?: object) => ({
    apiVersion: 'metallb.io/v1beta1',
    kind: 'IPAddressPool',
    metadata: { name, namespace: 'metallb-system', resourceVersion: '7' },
    ...(status && { status }),
  });

  it('counts assigned and available per family, avoidBuggyIPs and huge IPv6 as MetalLB (MaxInt64), printed exactly', () => {
    const cluster = new Cluster(snapshot.pools).put(svc('a'), svc('b', { clusterIPs: ['fd00::1'] }));
    const out = cluster.pass();
    const writes = poolStatusWrites([apiPool('buggy'), apiPool('huge')], out.usage);
    expect(writes.map((w) => [w.pool, w.status])).toEqual([
      ['buggy', { assignedIPv4: 1n, assignedIPv6: 0n, availableIPv4: 253n, availableIPv6: 0n }],
      ['huge', { assignedIPv4: 0n, assignedIPv6: 1n, availableIPv4: 4n, availableIPv6: 9223372036854775806n }],
    ]);
    expect(stringifyWithInt64(writes[1]?.write?.['status'])).toBe(
      '{"assignedIPv4":0,"assignedIPv6":1,"availableIPv4":4,"availableIPv6":9223372036854775806}',
    );
    expect(writes[0]?.write?.metadata.resourceVersion).toBe('7');
  });

  it('is not rewritten when the stored status already says so (no reload loop)', () => {
    const out = new Cluster(snapshot.pools).put(svc('a')).pass();
    const stored = JSON.parse(stringifyWithInt64(poolStatusWrites([apiPool('buggy'), apiPool('huge')], out.usage).map((w) => w.status)));
    const again = poolStatusWrites([apiPool('buggy', stored[0]), apiPool('huge', stored[1])], out.usage);
    expect(again.map((w) => w.write)).toEqual([undefined, undefined]);
  });
});

describe('ConfigurationState controller', () => {
  it('valid: one poolReconcilerValid condition, result Valid, no errorSummary', () => {
    expect(configurationStateStatus([poolCondition(undefined, NOW)])).toEqual({
      conditions: [{ type: 'poolReconcilerValid', status: 'True', reason: 'Reconciled', message: '', lastTransitionTime: NOW }],
      result: 'Valid',
    });
  });

  it('invalid: condition False with ConfigurationError, result Invalid, errorSummary the message', () => {
    const status = configurationStateStatus([poolCondition('pool p: invalid CIDR "10.0.0.0/33"', NOW)]);
    expect(status).toEqual({
      conditions: [
        {
          type: 'poolReconcilerValid',
          status: 'False',
          reason: 'ConfigurationError',
          message: 'configuration error: pool p: invalid CIDR "10.0.0.0/33"',
          lastTransitionTime: NOW,
        },
      ],
      result: 'Invalid',
      errorSummary: 'configuration error: pool p: invalid CIDR "10.0.0.0/33"',
    });
    expect(configurationStateStatus([]).result).toBe('Unknown');
  });

  it('is compared without lastTransitionTime, and created with MetalLB’s label', () => {
    const a = configurationStateStatus([poolCondition(undefined, NOW)]);
    expect(sameConfigurationState(a, configurationStateStatus([poolCondition(undefined, '2027-01-01T00:00:00Z')]))).toBe(true);
    expect(sameConfigurationState(a, configurationStateStatus([poolCondition('x', NOW)]))).toBe(false);
    expect(newConfigurationState('metallb-system', undefined).metadata).toEqual({
      name: 'controller',
      namespace: 'metallb-system',
      labels: { 'metallb.io/component-type': 'controller' },
    });
  });

  it('an invalid configuration keeps the last valid one running, and says so', () => {
    const good = snapshotOf(pool('main', ['192.0.2.0/30']));
    const choice = chooseConfiguration(good, { ok: false, errors: ['overlapping pools'] });
    expect(choice.running).toBe(good);
    expect(choice.error).toBe('overlapping pools');
    expect(choice.message).toBe('configuration invalid: overlapping pools; keeping the last valid configuration (1 IPAddressPool(s))');
    expect(chooseConfiguration(undefined, { ok: false, errors: ['x'] }).running).toBeUndefined();
    // Services keep their addresses under the kept configuration.
    const cluster = new Cluster(choice.running?.pools).put(svc('a', { ingress: [{ ip: '192.0.2.1' }] }));
    expect(cluster.pass().decisions[0]).toMatchObject({ reason: 'allocated', differences: ['metadata.annotations'] });
  });
});

describe('memberlist Secret', () => {
  const key = Uint8Array.from({ length: 16 }, (_, i) => i * 17);
  const deployment = { metadata: { name: 'controller', namespace: 'metallb-system', uid: 'dep-uid' } };

  it('is created when absent: secretkey of 22 characters, owned by the controller Deployment', () => {
    const d = memberlistSecretDecision('metallb-system', 'memberlist', undefined, deployment, key);
    if (d.kind !== 'create') throw new Error('expected a create');
    const data = (d.secret['data'] as Record<string, string>)['secretkey'] as string;
    const value = Buffer.from(data, 'base64').toString('utf8');
    expect(value).toHaveLength(22);
    expect(value).not.toContain('=');
    expect(Buffer.from(value, 'base64')).toEqual(Buffer.from(key));
    expect(d.secret.metadata).toEqual({
      name: 'memberlist',
      namespace: 'metallb-system',
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'controller', uid: 'dep-uid' }],
    });
  });

  it('is left alone when it exists (never rotated)', () => {
    const existing = { metadata: { name: 'memberlist', namespace: 'metallb-system' } };
    expect(memberlistSecretDecision('metallb-system', 'memberlist', existing, deployment, key).kind).toBe('exists');
  });
});
