/**
 * v1 Node: labels (for nodeSelectors and the exclude-from-external-load-balancers label), conditions
 * (NetworkUnavailable), addresses, and mlb's mlb.io/subnets annotation ("cidr,cidr": the subnets a plain host
 * is attached to, used to warn about L2 pools nobody on the segment can ARP for).
 */
import { type CIDR, type IP, parseCIDR, parseIP } from '../../ip';
import { MLB_SUBNETS_ANNOTATION, withKubeletLabels } from '../well-known';
import type { Node, NodeCondition, ObjectMeta } from '../types';
import { DiagnosticCode } from './diagnostic-codes';
import type { MapReader } from './field-reader';
import { readEnum } from './service';

const CONDITION_STATUSES: readonly NodeCondition['status'][] = ['True', 'False', 'Unknown'];
const ADDRESS_TYPES = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'] as const;

/** Node fields written by the kubelet and controllers; accepted so `kubectl get node -o yaml` pastes cleanly. */
const IGNORED_SPEC_FIELDS = ['podCIDR', 'podCIDRs', 'providerID', 'taints', 'unschedulable', 'configSource', 'externalID'];
const IGNORED_STATUS_FIELDS = [
  'capacity',
  'allocatable',
  'phase',
  'nodeInfo',
  'daemonEndpoints',
  'images',
  'volumesInUse',
  'volumesAttached',
  'config',
  'runtimeHandlers',
  'features',
];

export function readNode(top: MapReader, meta: ObjectMeta): Node {
  top.map('spec')?.ignore(...IGNORED_SPEC_FIELDS);
  const status = top.map('status');
  status?.ignore(...IGNORED_STATUS_FIELDS);
  const conditions: NodeCondition[] = [];
  const seen = new Set<string>();
  for (const item of status?.mapList('conditions') ?? []) {
    const r = item.value;
    const type = r.string('type', { required: true });
    const value = r.string('status', { required: true }) === undefined ? undefined : readEnum(r, 'status', CONDITION_STATUSES);
    r.ignore('lastHeartbeatTime', 'lastTransitionTime', 'reason', 'message');
    if (type === undefined || value === undefined) continue;
    if (seen.has(type)) r.error(DiagnosticCode.duplicateEntry, `duplicate condition "${type}"`, 'type');
    seen.add(type);
    conditions.push({ type, status: value });
  }
  const addresses: IP[] = [];
  for (const item of status?.mapList('addresses') ?? []) {
    const r = item.value;
    readEnum(r, 'type', ADDRESS_TYPES);
    const text = r.string('address', { required: true });
    // Hostname and DNS entries are not IPs and are not meant to be.
    const ip = text === undefined ? undefined : parseIP(text);
    if (ip) addresses.push(ip);
  }
  // The kubelet's labels, as on a cluster's Node, so a nodeSelector copied from MetalLB's docs selects it.
  const labelled = { ...meta, labels: withKubeletLabels(meta.name, meta.labels) };
  return { kind: 'Node', meta: labelled, conditions, addresses, subnets: readSubnets(top, meta) };
}

function readSubnets(top: MapReader, meta: ObjectMeta): CIDR[] {
  const text = meta.annotations[MLB_SUBNETS_ANNOTATION];
  if (text === undefined || text.trim() === '') return [];
  const position = top.scope.positions.get(`metadata.annotations.${MLB_SUBNETS_ANNOTATION}`) ?? top.position;
  const subnets: CIDR[] = [];
  for (const part of text.split(',')) {
    const trimmed = part.trim();
    const cidr = parseCIDR(trimmed);
    if (cidr) subnets.push(cidr);
    else {
      top.scope.error(
        DiagnosticCode.invalidSubnet,
        `invalid CIDR "${trimmed}" in annotation ${MLB_SUBNETS_ANNOTATION} of node "${meta.name}"`,
        position,
      );
    }
  }
  return subnets;
}
