/**
 * What `mlb daemon` tells its speaker: this node's name and labels, where gossip listens and whom it joins, the
 * gossip profile and key, where state and the control socket live, and whether to announce at all. The CLI's
 * flags map onto these (cli/commands/daemon.ts); the Kubernetes mode fills them from its environment.
 */
import type { Logger } from 'pino';
import type { Keyring } from '../gossip/codec';
import type { SwimConfig } from '../gossip/swim';
import type { HostPort } from '../gossip/transport/address';
import type { RunAs } from './health/run-as';

export interface SpeakerOptions {
  readonly nodeName: string;
  readonly bind: HostPort;
  readonly advertiseHost?: string;
  readonly join: readonly HostPort[];
  readonly keyring?: Keyring;
  readonly stateDir: string;
  readonly nodeLabels: Readonly<Record<string, string>>;
  readonly gossipConfig: SwimConfig;
  readonly profileName: string;
  /** Answer ARP/NDP for owned IPs (false: compute and report only, touching no interface). */
  readonly announce: boolean;
  /** Bind owned VIPs to this dummy interface (file mode default mlb0); undefined: do not bind. */
  readonly vipInterface?: string;
  /** The control API's unix socket. */
  readonly controlSocket: string;
  /** The group (name or gid) given the control socket, so its members may use it without root. */
  readonly controlSocketGroup?: string;
  /** mlb's version, shown by the control API. */
  readonly version: string;
  /** What other nodes' `mlb status` show as this node's release (records-protocol.ts releaseText); default: version. */
  readonly release?: string;
  /** exec: health checks run as this user (--health-check-user). */
  readonly healthCheckRunAs?: RunAs;
  /** --ignore-exclude-lb (MetalLB's speaker flag): nodes labelled exclude-from-external-load-balancers stay candidates. */
  readonly ignoreExcludeLB?: boolean;
  readonly logger: Logger;
}
