import { CodedError } from '../../errors/coded-error';

/** Why the lab could not do what was asked; the codes are stable (the CLI and tests branch on them). */
export type LabErrorCode =
  /** Not root: namespaces, veths and port 80 need it. */
  | 'needsRoot'
  /** No usable `ip netns` (iproute2 missing, or a kernel/container without network namespaces). */
  | 'noNetns'
  | 'badName'
  | 'badNodeCount'
  /** A lab of this name is already up (namespaces or a state file exist). */
  | 'labExists'
  /** No lab in this directory (no state file). */
  | 'noLab'
  | 'unknownNode'
  /** An `ip` command failed; the message carries its stderr. */
  | 'commandFailed'
  /** A daemon or HTTP server exited while starting; the message carries its log's last lines. */
  | 'processExited'
  /** Something the lab waits for did not happen in time. */
  | 'timeout'
  /** --bgp on a machine without FRR (zebra, bgpd, bfdd, vtysh, user frr). */
  | 'noFrr'
  /** The lab's FRR router did not start, or did not answer. */
  | 'routerFailed'
  /** A BGP step on a lab built without --bgp. */
  | 'noRouter'
  /** `mlb lab partition` on a machine without nft (nftables drops the partitioned node's packets). */
  | 'noNftables';

export class LabError extends CodedError<LabErrorCode> {
  constructor(message: string, code: LabErrorCode) {
    super(code, message);
  }
}

/** The one sentence a user without root sees (the README quotes it). */
export const NEEDS_ROOT_MESSAGE = 'mlb lab needs root (network namespaces): run it with sudo';
