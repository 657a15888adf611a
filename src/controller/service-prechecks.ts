/**
 * The checks MetalLB's convergeBalancer (v0.16.1 controller/service.go) makes before it asks the allocator,
 * in its order: type, pools, cluster IPs, RequireDualStack, then the families of what the service holds and of
 * its cluster IPs. A service that passes them all is handed to the allocator with its family read from its
 * cluster IPs; one that does not gets its decision here, with MetalLB's event when MetalLB emits one.
 */
import { type IP, formatIP, parseIP } from '../ip';
import type { IPFamilyName } from '../model';
import { goQuote } from '../allocator/go-format';
import { type ApiService, apiServiceKey } from './api-objects';
import { clusterIPsOf, familyOfTexts, serviceClusterFamily } from './cluster-family';
import { type ControllerEvent, noClusterIPsFamilyEvent, noLBIPsFamilyEvent, notEnoughClusterIPsEvent } from './controller-events';
import { familyPolicyOf, ingressTexts } from './service-view';

/** Why a service never reached the allocator. */
export const PrecheckReason = {
  /** spec.type is not LoadBalancer: its address and annotation are cleared, no event. */
  notLoadBalancer: 'notLoadBalancer',
  /** No spec.clusterIPs nor spec.clusterIP: no family to allocate for; cleared, logged only. */
  noClusterIPs: 'noClusterIPs',
  /** RequireDualStack with fewer than two cluster IPs: cleared, Warning event. */
  notEnoughClusterIPs: 'notEnoughClusterIPs',
  /** The cluster IPs have no family and the service holds addresses: left as it is, Warning event. */
  clusterFamilyUnknown: 'clusterFamilyUnknown',
  /** The cluster IPs have no family and the service holds nothing: allocation fails with that error. */
  clusterFamilyFailed: 'clusterFamilyFailed',
} as const;
export type PrecheckReason = (typeof PrecheckReason)[keyof typeof PrecheckReason];

export type Precheck =
  | {
      readonly kind: 'decided';
      readonly reason: PrecheckReason;
      readonly message: string;
      /** cleared: empty status and no annotation; unchanged: no write at all. */
      readonly outcome: 'cleared' | 'unchanged';
      readonly events: readonly ControllerEvent[];
    }
  | {
      readonly kind: 'allocate';
      readonly families: readonly IPFamilyName[];
      /** What it holds, from status when this controller decided nothing for it yet. */
      readonly held: readonly IP[];
      /** nolbIPsIPFamily, when the held addresses have no family (the allocator then clears them). */
      readonly events: readonly ControllerEvent[];
    };

/** The printed form of a held address MetalLB could not parse (Go prints a nil net.IP as "<nil>"). */
const NIL_IP_TEXT = '<nil>';

/**
 * `remembered`: the addresses this controller gave the service on its last pass (undefined: none known, read
 * the status). Only called when pools exist (no pools is the allocator's noPools, checked before this).
 */
export function precheckService(service: ApiService, remembered: readonly IP[] | undefined): Precheck {
  const key = apiServiceKey(service);
  if ((service.spec?.type ?? 'ClusterIP') !== 'LoadBalancer') {
    return decided(PrecheckReason.notLoadBalancer, `not a LoadBalancer service (type ${service.spec?.type ?? 'ClusterIP'})`, 'cleared');
  }
  const clusterIPs = clusterIPsOf(service);
  if (clusterIPs.length === 0) return decided(PrecheckReason.noClusterIPs, 'No ClusterIPs', 'cleared');
  if (familyPolicyOf(service) === 'RequireDualStack' && (service.spec?.clusterIPs ?? []).length < 2) {
    const event = notEnoughClusterIPsEvent(service.spec?.clusterIPs ?? []);
    return decided(PrecheckReason.notEnoughClusterIPs, event.message, 'cleared', [event]);
  }

  const events: ControllerEvent[] = [];
  let held: readonly IP[];
  if (remembered !== undefined) {
    held = remembered;
  } else {
    const texts = ingressTexts(service);
    const parsed = texts.map((t) => parseIP(t));
    held = parsed.filter((ip): ip is IP => ip !== undefined);
    if (texts.length > 0) {
      const shown = parsed.map((ip) => (ip === undefined ? NIL_IP_TEXT : formatIP(ip)));
      const heldFamily = familyOfTexts(shown);
      if (!heldFamily.ok) {
        events.push(noLBIPsFamilyEvent(shown, heldFamily.error));
        // An unreadable entry makes the whole set unusable, as a nil IP does in MetalLB's Assign.
        if (held.length !== texts.length) held = [];
      }
    }
  }

  const family = serviceClusterFamily(service);
  if (!family.ok) {
    if (held.length > 0) {
      const event = noClusterIPsFamilyEvent(service.spec?.clusterIPs ?? [], service.spec?.clusterIP ?? '', family.error);
      return decided(PrecheckReason.clusterFamilyUnknown, event.message, 'unchanged', [...events, event]);
    }
    const message = `Failed to allocate IP for ${goQuote(key)}: ${family.error}`;
    return decided(PrecheckReason.clusterFamilyFailed, message, 'cleared', [
      ...events,
      { type: 'Warning', reason: 'AllocationFailed', message },
    ]);
  }
  return { kind: 'allocate', families: family.families, held, events };
}

function decided(
  reason: PrecheckReason,
  message: string,
  outcome: 'cleared' | 'unchanged',
  events: readonly ControllerEvent[] = [],
): Precheck {
  return { kind: 'decided', reason, message, outcome, events };
}
