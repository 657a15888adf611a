/**
 * What the speaker needs from any configuration source (the YAML file today, the Kubernetes API next): a first
 * valid configuration or a refusal that says why, then every change, with the last good configuration kept
 * running while what the source holds now is refused (MetalLB's metallb_k8s_client_config_stale_bool).
 * Source-neutral on purpose: nothing here knows about files, watchers or informers.
 */
import type { ServiceEndpoints } from '../election/election-input';
import type { Diagnostic, Snapshot } from '../model';
import { CodedError } from '../errors/coded-error';

export interface ConfigState {
  /** The configuration in force: the last valid one; undefined only before the first valid load. */
  readonly snapshot: Snapshot | undefined;
  /** True when what the source holds now is not what runs (its last read failed or did not validate). */
  readonly stale: boolean;
  /** The diagnostics of the last read (errors when stale, warnings otherwise), errors first (model/diagnostic-report). */
  readonly diagnostics: readonly Diagnostic[];
  /** When the running snapshot was loaded (clock milliseconds); undefined before the first valid load. */
  readonly loadedAt: number | undefined;
  /**
   * Where each service of the snapshot can be served, by "namespace/name", when the source knows it (Kubernetes:
   * the EndpointSlices, as MetalLB's speaker counts them). Absent (the file source): the daemon decides itself
   * (every live node, or the health checks). Goes with `snapshot`: kept with it while the source is stale.
   */
  readonly endpoints?: ReadonlyMap<string, ServiceEndpoints>;
}

export type ConfigListener = (state: ConfigState) => void;

export interface ConfigSource {
  /** Where the configuration comes from as an operator names it (the --config path): logs, events, `mlb status`. */
  readonly origin: string;
  /** What start() does, for a failed start's message ("reading the configuration file /etc/mlb/mlb.yaml"). */
  readonly loadingStep: string;
  /** The state now; what the last listener call carried. */
  readonly state: ConfigState;
  /**
   * The first load, then watching. Resolves with a state that has a snapshot; rejects with ConfigLoadError when
   * the configuration is invalid, or with the underlying error (fs, network) when it cannot be read at all.
   */
  start(): Promise<ConfigState>;
  /** Calls `listener` after every change of state once started; returns the unsubscribe function. */
  onChange(listener: ConfigListener): () => void;
  /** Stops watching; no listener is called afterwards. */
  stop(): void | Promise<void>;
}

/** Startup failed: the configuration is unreadable or invalid; diagnostics say why. */
export class ConfigLoadError extends CodedError<'invalidConfig'> {
  constructor(
    readonly origin: string,
    readonly diagnostics: readonly Diagnostic[],
  ) {
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    super('invalidConfig', `configuration ${origin} is not valid (${errors} ${errors === 1 ? 'error' : 'errors'})`);
  }
}
