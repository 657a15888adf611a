// The pure decisions behind the speaker's status objects, events and ConfigurationState in Kubernetes mode.
import { describe, expect, it } from 'vitest';
import { newlyAnnounced, nodeAssignedEvent } from '../../../src/daemon/k8s/announced-services';
import { planServiceStatus, type StoredStatus } from '../../../src/daemon/k8s/service-status-plan';
import { newSpeakerConfigurationState, speakerConfigurationStatus } from '../../../src/daemon/k8s/speaker-configuration-state';

const owner = { name: 'speaker-x1', uid: 'uid-1' };
const labels = (node: string, name = 'web', namespace = 'default') => ({
  'metallb.io/node': node,
  'metallb.io/service-name': name,
  'metallb.io/service-namespace': namespace,
});
const stored = (name: string, node: string, status: unknown = { node, serviceName: 'web', serviceNamespace: 'default' }): StoredStatus => ({
  name,
  labels: labels(node),
  status,
});
const l2 = (announced: { service: string; detail: string[] }[], objects: StoredStatus[], node = 'node-a') =>
  planServiceStatus({ kind: 'ServiceL2Status', node, namespace: 'metallb-system', owner, announced, stored: objects });

describe('ServiceL2Status plan', () => {
  it('creates one object for a newly owned service, MetalLB-shaped, then sets its status', () => {
    expect(l2([{ service: 'default/web', detail: [] }], [])).toEqual([
      {
        op: 'create',
        kind: 'ServiceL2Status',
        body: {
          apiVersion: 'metallb.io/v1beta1',
          kind: 'ServiceL2Status',
          metadata: {
            generateName: 'l2-',
            namespace: 'metallb-system',
            labels: labels('node-a'),
            ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'speaker-x1', uid: 'uid-1' }],
          },
          spec: {},
        },
        status: { node: 'node-a', serviceName: 'web', serviceNamespace: 'default' },
      },
    ]);
  });

  it('lists interfaces only when the advertisement restricts them, sorted', () => {
    const [create] = l2([{ service: 'default/web', detail: ['eth1', 'eth0'] }], []);
    expect(create).toMatchObject({ status: { interfaces: [{ name: 'eth0' }, { name: 'eth1' }] } });
  });

  it('does nothing when its object already says so, and patches a status-less (just created) one', () => {
    expect(l2([{ service: 'default/web', detail: [] }], [stored('l2-aaaaa', 'node-a')])).toEqual([]);
    expect(l2([{ service: 'default/web', detail: [] }], [stored('l2-aaaaa', 'node-a', null)])).toEqual([
      {
        op: 'patchStatus',
        kind: 'ServiceL2Status',
        name: 'l2-aaaaa',
        status: { node: 'node-a', serviceName: 'web', serviceNamespace: 'default' },
      },
    ]);
  });

  it('the winner deletes the previous owner’s object and its own duplicates; a loser deletes its own', () => {
    const objects = [stored('l2-bbbbb', 'node-b'), stored('l2-aaaaa', 'node-a'), stored('l2-zzzzz', 'node-a')];
    expect(l2([{ service: 'default/web', detail: [] }], objects).map((a) => [a.op, 'name' in a ? a.name : ''])).toEqual([
      ['delete', 'l2-bbbbb'],
      ['delete', 'l2-zzzzz'],
    ]);
    // node-b lost it: it deletes its own, and leaves node-a's alone.
    expect(l2([], objects, 'node-b').map((a) => [a.op, 'name' in a ? a.name : ''])).toEqual([['delete', 'l2-bbbbb']]);
  });

  it('ServiceBGPStatus: each node keeps its own with sorted peers and never deletes another node’s', () => {
    const actions = planServiceStatus({
      kind: 'ServiceBGPStatus',
      node: 'node-a',
      namespace: 'metallb-system',
      owner,
      announced: [{ service: 'default/web', detail: ['tor-b', 'tor-a'] }],
      stored: [stored('bgp-bbbbb', 'node-b')],
    });
    expect(actions).toEqual([
      expect.objectContaining({
        op: 'create',
        body: expect.objectContaining({ metadata: expect.objectContaining({ generateName: 'bgp-' }) }),
        status: { node: 'node-a', serviceName: 'web', serviceNamespace: 'default', peers: ['tor-a', 'tor-b'] },
      }),
    ]);
  });
});

describe('nodeAssigned events', () => {
  it('are MetalLB’s words, owed once per start of an announcement', () => {
    expect(nodeAssignedEvent('default/web', 'node-a', 'layer2')).toEqual({
      service: 'default/web',
      type: 'Normal',
      reason: 'nodeAssigned',
      message: 'announcing from node "node-a" with protocol "layer2"',
    });
    const web = { layer2: [{ service: 'default/web', detail: [] }], bgp: [] };
    expect(newlyAnnounced(undefined, web, 'node-a').map((e) => e.service)).toEqual(['default/web']);
    expect(newlyAnnounced(web, web, 'node-a')).toEqual([]);
    const both = { layer2: web.layer2, bgp: [{ service: 'default/db', detail: ['tor'] }] };
    expect(newlyAnnounced(web, both, 'node-a').map((e) => e.message)).toEqual(['announcing from node "node-a" with protocol "bgp"']);
  });
});

describe('ConfigurationState speaker-<node>', () => {
  it('is labelled as MetalLB labels it and says Valid or Invalid with the error', () => {
    expect(newSpeakerConfigurationState('metallb-system', 'node-a', owner).metadata).toEqual({
      name: 'speaker-node-a',
      namespace: 'metallb-system',
      labels: { 'metallb.io/component-type': 'speaker', 'metallb.io/node-name': 'node-a' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'speaker-x1', uid: 'uid-1' }],
    });
    const now = '2026-01-01T00:00:00Z';
    expect(speakerConfigurationStatus(undefined, now)).toEqual({
      conditions: [{ type: 'configReconcilerValid', status: 'True', reason: 'Reconciled', message: '', lastTransitionTime: now }],
      result: 'Valid',
    });
    expect(speakerConfigurationStatus('pool public: bad CIDR', now)).toMatchObject({
      result: 'Invalid',
      errorSummary: 'configuration error: pool public: bad CIDR',
    });
  });
});
