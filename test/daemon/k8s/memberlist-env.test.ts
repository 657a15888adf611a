// MetalLB's speaker environment in Kubernetes mode, and the join targets from the listed speaker pods.
import { describe, expect, it } from 'vitest';
import { joinTargets, memberlistEnv } from '../../../src/daemon/k8s/memberlist-env';
import { configurationErrorOf } from '../../../src/daemon/k8s/speaker-configuration-state';

describe('memberlist settings from the environment', () => {
  it('defaults as MetalLB’s manifests: speaker labels, port 7946, /etc/ml_secret_key/secretkey if mounted', () => {
    expect(memberlistEnv({})).toEqual({
      labels: 'app=metallb,component=speaker',
      bind: undefined,
      port: 7946,
      keyFile: { path: '/etc/ml_secret_key/secretkey', required: false },
      podName: undefined,
    });
  });

  it('takes METALLB_ML_* and METALLB_POD_NAME; a named secret directory must be readable', () => {
    expect(
      memberlistEnv({
        METALLB_ML_LABELS: 'app=x',
        METALLB_ML_BIND_ADDR: '10.0.0.5',
        METALLB_ML_BIND_PORT: '7947',
        METALLB_ML_SECRET_KEY_PATH: '/s/',
        METALLB_POD_NAME: 'speaker-abc',
      }),
    ).toEqual({
      labels: 'app=x',
      bind: { host: '10.0.0.5', port: 7947 },
      port: 7947,
      keyFile: { path: '/s/secretkey', required: true },
      podName: 'speaker-abc',
    });
  });
});

describe('join targets from the speaker pods', () => {
  it('are the pod IPs on the memberlist port, without pods that have none or have ended, sorted and unique', () => {
    const pods = [
      { status: { podIP: '10.0.0.12', phase: 'Running' } },
      { status: { phase: 'Pending' } },
      { status: { podIP: '10.0.0.11', phase: 'Running' } },
      { status: { podIP: '10.0.0.11', phase: 'Running' } },
      { status: { podIP: '10.0.0.13', phase: 'Failed' } },
    ];
    expect(joinTargets(pods, 7946)).toEqual([
      { host: '10.0.0.11', port: 7946 },
      { host: '10.0.0.12', port: 7946 },
    ]);
  });
});

describe('the ConfigurationState’s configuration error', () => {
  it('is the first error of a refused configuration, never an API outage', () => {
    const base = { snapshot: undefined, loadedAt: undefined };
    expect(configurationErrorOf({ ...base, stale: false, diagnostics: [] })).toBeUndefined();
    const outage = { severity: 'error' as const, code: 'apiUnreachable' as never, message: 'the Kubernetes API is unreachable' };
    expect(configurationErrorOf({ ...base, stale: true, diagnostics: [outage] })).toBeUndefined();
    const bad = { severity: 'error' as const, code: 'invalidCIDR' as never, message: 'pool public: bad CIDR' };
    expect(configurationErrorOf({ ...base, stale: true, diagnostics: [outage, bad] })).toMatch(/pool public: bad CIDR/);
  });
});
