/**
 * What `mlb check` concludes from one status snapshot (GET /v1/snapshot): pure, so every rule is unit-tested
 * without a daemon. Critical means a client cannot reach a service IP right now, or may reach the wrong host;
 * warning means the cluster still serves every IP but has lost some of its redundancy or is not running what the
 * operator wrote. The daemon answers for the whole cluster as gossip shows it, so one check on any node covers
 * every service; members, drains and configuration agreement are that node's view.
 */
import type { ControlSnapshot } from '../../daemon/control/control-snapshot';

export type CheckLevel = 'ok' | 'warning' | 'critical';

export interface CheckReason {
  readonly level: Exclude<CheckLevel, 'ok'>;
  /** One short sentence naming the IP, service, node or peer concerned. */
  readonly text: string;
}

export interface CheckVerdict {
  /** The worst level among the reasons; ok when there are none. */
  readonly level: CheckLevel;
  /** Critical reasons first, then warnings; each group in the snapshot's order. */
  readonly reasons: readonly CheckReason[];
}

type Service = ControlSnapshot['services'][number];

/**
 * Allocation verdicts (src/daemon/allocation/effective-allocation.ts) that leave a service without an IP it is
 * owed. `skipped` is absent: MetalLB skips services that are not its own (another loadBalancerClass), and
 * `waitingForAllocator` is a warning: it passes once the allocator's table arrives.
 */
const ALLOCATION_WAITING = 'waitingForAllocator';
const ALLOCATION_NOT_OURS = 'skipped';
const ALLOCATION_OK = 'ok';

/** BGP's only state in which the peer holds our routes (RFC 4271, section 8.2.2). */
const BGP_ESTABLISHED = 'Established';

export function judgeSnapshot(s: ControlSnapshot): CheckVerdict {
  const reasons = [...criticalReasons(s), ...warningReasons(s)];
  const level: CheckLevel = reasons.some((r) => r.level === 'critical') ? 'critical' : reasons.length > 0 ? 'warning' : 'ok';
  return { level, reasons };
}

/** The distinct service IPs nobody announces, each with the services that want it (services can share an IP). */
export function unannouncedIPs(s: ControlSnapshot): Map<string, string[]> {
  const byIP = new Map<string, string[]>();
  for (const svc of s.services) {
    if (isAnnounced(svc)) continue;
    for (const ip of svc.ips) byIP.set(ip, [...(byIP.get(ip) ?? []), svc.service]);
  }
  return byIP;
}

/** layer2 has one owner, BGP any number of announcing nodes; either way nobody means the IP is unreachable. */
function isAnnounced(svc: Service): boolean {
  return svc.protocol === 'layer2' ? svc.owner !== null : svc.announcing.length > 0;
}

function criticalReasons(s: ControlSnapshot): CheckReason[] {
  const critical = (text: string): CheckReason => ({ level: 'critical', text });
  const unannounced = [...unannouncedIPs(s)].map(([ip, services]) => critical(`${ip} (${services.join(', ')}) announced by nobody`));
  const withoutIP = s.services
    .filter((svc) => svc.ips.length === 0 && ![ALLOCATION_OK, ALLOCATION_WAITING, ALLOCATION_NOT_OURS].includes(svc.allocation.status))
    .map((svc) =>
      critical(`${svc.service} has no IP: ${svc.allocation.status}${svc.allocation.message ? ` (${svc.allocation.message})` : ''}`),
    );
  // Two MACs answering for one IP: clients reach either host, or a device that is not ours (split brain).
  // Every node that sees a conflict reports it, so one (IP, MAC) pair can come several times.
  const conflicts = [...new Map(s.conflicts.map((c) => [`${c.ip} ${c.mac}`, c])).values()].map((c) =>
    critical(`${c.ip} also answered by ${c.mac} (${c.node ?? 'not a member'}), seen by ${c.observedBy}`),
  );
  return [...unannounced, ...withoutIP, ...conflicts];
}

function warningReasons(s: ControlSnapshot): CheckReason[] {
  const warning = (text: string): CheckReason => ({ level: 'warning', text });
  const self = s.node;
  const others = s.members.filter((m) => m.name !== self.name);
  return [
    ...s.members.filter((m) => m.state === 'suspect' || m.state === 'dead').map((m) => warning(`member ${m.name} is ${m.state}`)),
    ...(s.config.state === 'stale'
      ? [warning(`this node's configuration file is refused, the last good one runs: ${s.config.errors[0] ?? s.config.file}`)]
      : []),
    ...configAgreementReasons(s).map(warning),
    ...(self.draining ? [warning(`${self.name} is draining (mlb undrain ends it)`)] : []),
    ...(self.warmingUp ? [warning(`${self.name} is warming up${self.warmUpUntil ? ` until ${self.warmUpUntil}` : ''}`)] : []),
    ...(self.leaving ? [warning(`${self.name} is leaving the cluster`)] : []),
    ...others.filter((m) => m.state === 'alive' && m.draining).map((m) => warning(`${m.name} is draining`)),
    ...others.filter((m) => m.state === 'alive' && m.warmingUp).map((m) => warning(`${m.name} is warming up`)),
    ...s.services
      .filter((svc) => isAnnounced(svc) && svc.health.failing.length > 0)
      .map((svc) => warning(`${svc.service} health check failing on ${svc.health.failing.join(', ')}`)),
    ...s.services
      .filter((svc) => svc.ips.length === 0 && svc.allocation.status === ALLOCATION_WAITING)
      .map((svc) => warning(`${svc.service} has no IP yet: ${svc.allocation.message ?? ALLOCATION_WAITING}`)),
    ...(s.bgp ?? []).flatMap((b) => [
      ...(b.phase === BGP_ESTABLISHED
        ? []
        : [warning(`BGP peer ${b.peer} (${b.address}) is ${b.phase}${b.lastProblem ? `: ${b.lastProblem}` : ''}`)]),
      ...(b.bfd === 'down' ? [warning(`BFD with BGP peer ${b.peer} is down`)] : []),
    ]),
  ];
}

/** Nodes that do not run the configuration this node runs: an edit that reached some hosts only. */
function configAgreementReasons(s: ControlSnapshot): string[] {
  const a = s.configAgreement;
  if (!a) return [];
  return [
    ...(a.refused ?? []).map((r) => `configuration file refused on ${r.node}: ${r.reason}`),
    ...a.divergent.map((d) => `configuration differs on ${d.node} (${d.services} services vs ${a.services})`),
    ...a.retained.map((r) => `${r.service} still announced though this node's file no longer defines it`),
  ];
}
