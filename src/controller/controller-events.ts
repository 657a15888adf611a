/**
 * The Kubernetes Events the controller emits beyond the allocator's (MetalLB v0.16.1 controller/service.go and
 * controller/main.go: c.client.Errorf -> Warning, Infof -> Normal). Reasons and messages are MetalLB's, byte for
 * byte: users grep for them and alert on them. Some reasons are not CamelCase in MetalLB; they are kept so.
 */
import type { ServiceEvent as AllocatorEvent } from '../allocator';
import { goPlainList, goQuoteText } from './go-text';

export const ControllerEventReason = {
  notEnoughClusterIPs: 'not enough clusterips',
  noLBIPsFamily: 'nolbIPsIPFamily',
  noClusterIPsFamily: 'noclusterIPsIPFamily',
  deprecatedAnnotation: 'deprecatedAnnotation',
} as const;
export type ControllerEventReason = (typeof ControllerEventReason)[keyof typeof ControllerEventReason];

/** One event for one Service: the allocator's reasons plus the controller's own. */
export interface ControllerEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: AllocatorEvent['reason'] | ControllerEventReason;
  readonly message: string;
}

/** RequireDualStack with fewer than two cluster IPs (%v of the slice). */
export function notEnoughClusterIPsEvent(clusterIPs: readonly string[]): ControllerEvent {
  return {
    type: 'Warning',
    reason: ControllerEventReason.notEnoughClusterIPs,
    message: `Service requires dual stack but not enough clusterips ${goPlainList(clusterIPs)}`,
  };
}

/** The held ingress addresses have no family (three of them, two of one family, one unreadable): as Go prints []net.IP. */
export function noLBIPsFamilyEvent(ips: readonly string[], error: string): ControllerEvent {
  return {
    type: 'Warning',
    reason: ControllerEventReason.noLBIPsFamily,
    message: `Failed to retrieve LBIPs IPFamily for ${goQuoteText(ips)}: ${error}`,
  };
}

/** The cluster IPs have no family; MetalLB prints %q of spec.clusterIPs, then spec.clusterIP plain. */
export function noClusterIPsFamilyEvent(clusterIPs: readonly string[], clusterIP: string, error: string): ControllerEvent {
  return {
    type: 'Warning',
    reason: ControllerEventReason.noClusterIPsFamily,
    message: `Failed to retrieve ClusterIPs IPFamily for ${goQuoteText(clusterIPs)} ${clusterIP}: ${error}`,
  };
}

/** A metallb.universe.tf/ annotation, on a pass that writes the Service (MetalLB warns only then). */
export function deprecatedAnnotationEvent(annotation: string): ControllerEvent {
  return {
    type: 'Warning',
    reason: ControllerEventReason.deprecatedAnnotation,
    message: `Service uses deprecated annotation ${annotation}`,
  };
}
