/**
 * One YAML document to one object: apiVersion and kind decide the reader; metadata is read the same way for
 * all. `kind: List` (what `kubectl get -o yaml` prints) is unwrapped, so cluster output can be used as it is.
 */
import { type Node as YamlNode, isMap, isScalar } from 'yaml';
import { DEFAULT_METALLB_NAMESPACE } from '../well-known';
import type { ObjectMeta } from '../types';
import { readBGPAdvertisement, readL2Advertisement } from './advertisements';
import { readBFDProfile } from './bfd-profile';
import { readBGPPeer } from './bgp-peer';
import { readCommunity } from './community';
import { DiagnosticCode } from './diagnostic-codes';
import type { DiagnosticSink } from './diagnostic-sink';
import { closestMatch } from './did-you-mean';
import { MapReader, ObjectScope } from './field-reader';
import { KIND_VERSIONS } from './kind-versions';
import { type MetadataRules, readMetadata } from './metadata';
import { readNode } from './node';
import type { ParsedObjects } from './parsed-objects';
import { readIPAddressPool } from './pool';
import { readService } from './service';
import { type SourceText, type YamlDocument, positionOfNode, resolveAlias } from './yaml-documents';

/** Services without a namespace live in "default", as kubectl applies them. */
const DEFAULT_SERVICE_NAMESPACE = 'default';

const METALLB_RULES: MetadataRules = { defaultNamespace: DEFAULT_METALLB_NAMESPACE, nameRule: 'subdomain' };

/** Top-level fields every object may carry; status is only read for Service and Node. */
const TOP_FIELDS = ['apiVersion', 'kind', 'metadata', 'spec', 'status'];

export function readDocument(source: SourceText, document: YamlDocument, sink: DiagnosticSink, into: ParsedObjects): void {
  const root = document.root === undefined ? undefined : resolveAlias(document.doc, document.root);
  if (root !== undefined) readObjectNode(source, document, root, sink, into);
}

function scalarText(node: unknown): string | undefined {
  return isScalar(node) && typeof node.value === 'string' ? node.value : undefined;
}

function readObjectNode(
  source: SourceText,
  document: YamlDocument,
  node: YamlNode,
  sink: DiagnosticSink,
  into: ParsedObjects,
  inList = false,
): void {
  if (!isMap(node)) {
    sink.error(
      DiagnosticCode.notAnObject,
      'a configuration document must be a mapping with apiVersion, kind and metadata',
      positionOfNode(source, node),
    );
    return;
  }
  const kindNode = node.get('kind', true);
  const kind = scalarText(kindNode);
  const scope = new ObjectScope(source, document.doc, sink, kind ?? 'document');
  const top = new MapReader(scope, node, kind ?? 'document', '');
  scope.positions.set('', top.position);
  if (kind === undefined) {
    if (kindNode === undefined) top.missing('kind');
    else top.wrongType('kind', 'a string', kindNode as YamlNode);
    return;
  }
  const versions = KIND_VERSIONS[kind];
  if (!versions && inList && isServerObject(node)) {
    scope.note(DiagnosticCode.skippedKind, skippedKindMessage(kind, node), top.position);
    return;
  }
  if (!versions) {
    const suggestion = closestMatch(kind, Object.keys(KIND_VERSIONS));
    const hint = suggestion ? ` (did you mean "${suggestion}"?)` : `: mlb reads ${Object.keys(KIND_VERSIONS).join(', ')}`;
    top.error(DiagnosticCode.unknownKind, `unknown kind "${kind}"${hint}`, 'kind');
    return;
  }
  const apiVersion = top.string('apiVersion', { required: true });
  if (apiVersion === undefined) return;
  if (!versions.includes(apiVersion)) {
    top.error(
      DiagnosticCode.unknownApiVersion,
      `unknown apiVersion "${apiVersion}" for kind ${kind}: expected ${versions.join(' or ')}`,
      'apiVersion',
    );
    return;
  }
  top.ignore(...TOP_FIELDS);
  if (kind === 'List') {
    top.ignore('items');
    const items = top.list('items') ?? [];
    for (const item of items) readObjectNode(source, document, item.value, sink, into, true);
    scope.finishAll();
    return;
  }
  readKind(kind, apiVersion, top, scope, into);
  scope.finishAll();
}

function readKind(kind: string, apiVersion: string, top: MapReader, scope: ObjectScope, into: ParsedObjects): void {
  const metaFor = (rules: MetadataRules): ObjectMeta | undefined => readMetadata(top, kind, rules);
  switch (kind) {
    case 'IPAddressPool': {
      const meta = metaFor(METALLB_RULES);
      top.ignore('status'); // assignedIPv4 ... are written by the controller
      if (meta) into.pools.push({ object: readIPAddressPool(top, meta), apiVersion, scope });
      return;
    }
    case 'L2Advertisement': {
      const meta = metaFor(METALLB_RULES);
      if (meta) into.l2Advertisements.push({ object: readL2Advertisement(top, meta), apiVersion, scope });
      return;
    }
    case 'BGPAdvertisement': {
      const meta = metaFor(METALLB_RULES);
      if (meta) into.bgpAdvertisements.push({ object: readBGPAdvertisement(top, meta), apiVersion, scope });
      return;
    }
    case 'BGPPeer': {
      const meta = metaFor(METALLB_RULES);
      const peer = meta && readBGPPeer(top, meta, apiVersion);
      if (peer) into.bgpPeers.push({ object: peer, apiVersion, scope });
      return;
    }
    case 'BFDProfile': {
      const meta = metaFor(METALLB_RULES);
      if (meta) into.bfdProfiles.push({ object: readBFDProfile(top, meta), apiVersion, scope });
      return;
    }
    case 'Community': {
      const meta = metaFor(METALLB_RULES);
      if (meta) {
        const { object, entries } = readCommunity(top, meta);
        into.communities.push({ object, entries, apiVersion, scope });
      }
      return;
    }
    case 'Service': {
      const meta = metaFor({ defaultNamespace: DEFAULT_SERVICE_NAMESPACE, nameRule: 'serviceName' });
      if (meta) into.services.push({ object: readService(top, meta), apiVersion, scope });
      return;
    }
    case 'Node': {
      const meta = metaFor({ defaultNamespace: '', nameRule: 'subdomain', clusterScoped: true });
      if (meta) into.nodes.push({ object: readNode(top, meta), apiVersion, scope });
      return;
    }
  }
}

/**
 * An item the API server returned (it has metadata.uid or resourceVersion, which only the server writes), so
 * its kind is the cluster's, not a typo: `kubectl get all,ipaddresspools -A -o yaml` lists Pods and
 * EndpointSlices beside the configuration. A hand-written List item of an unknown kind is still an error, with
 * its did-you-mean.
 */
function isServerObject(node: YamlNode): boolean {
  if (!isMap(node)) return false;
  const metadata = node.get('metadata', true);
  return isMap(metadata) && (metadata.has('uid') || metadata.has('resourceVersion'));
}

/** Kinds MetalLB's own components write: named so users see mlb knows them and reads them elsewhere. */
const STATUS_KINDS: Readonly<Record<string, string>> = {
  ServiceL2Status: 'written by the speaker that announces a service (mlb status --kubeconfig shows it)',
  ServiceBGPStatus: 'written by each speaker that announces a service (mlb status --kubeconfig shows it)',
  ConfigurationState: "written by MetalLB's components about their configuration (mlb status --kubeconfig shows it)",
};

function skippedKindMessage(kind: string, node: YamlNode): string {
  const metadata = isMap(node) ? node.get('metadata', true) : undefined;
  const name = isMap(metadata) ? scalarText(metadata.get('name', true)) : undefined;
  const what = `${kind}${name === undefined ? '' : ` "${name}"`}`;
  const why = STATUS_KINDS[kind] ?? 'not configuration';
  return `skipped ${what}: ${why}; mlb reads ${Object.keys(KIND_VERSIONS).join(', ')}`;
}
