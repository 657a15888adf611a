/**
 * Which configuration the controller runs: the newest valid one. An invalid one (a pool that does not parse,
 * overlapping pools) keeps the last valid configuration running, as MetalLB's PoolReconciler keeps its
 * currentConfig, and is reported in the ConfigurationState condition; services keep their addresses.
 */
import type { Snapshot } from '../model';

export type ConfigurationRead =
  { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly errors: readonly string[] };

export interface ConfigurationChoice {
  /** The configuration to run; undefined until one was ever valid. */
  readonly running: Snapshot | undefined;
  /** The error the condition reports; undefined when the newest read is valid. */
  readonly error?: string;
  /** What happened, for the log. */
  readonly message: string;
}

export function chooseConfiguration(lastGood: Snapshot | undefined, read: ConfigurationRead): ConfigurationChoice {
  if (read.ok) {
    return { running: read.snapshot, message: `configuration loaded: ${read.snapshot.pools.length} IPAddressPool(s)` };
  }
  const error = read.errors.join('; ');
  const kept =
    lastGood === undefined
      ? 'no valid configuration yet: no service is allocated until one is'
      : `keeping the last valid configuration (${lastGood.pools.length} IPAddressPool(s))`;
  return { running: lastGood, error, message: `configuration invalid: ${error}; ${kept}` };
}
