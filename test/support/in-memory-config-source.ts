// A configuration source held in memory: what a test hands a Speaker instead of a file (src/sources/README.md).
import type { Diagnostic, Snapshot } from '../../src/model';
import { ConfigLoadError, type ConfigListener, type ConfigSource, type ConfigState } from '../../src/sources/config-source';

export class InMemoryConfigSource implements ConfigSource {
  readonly origin = 'memory';
  readonly loadingStep = 'reading the configuration from memory';
  private current: ConfigState;
  private readonly listeners = new Set<ConfigListener>();
  stopped = false;

  constructor(
    first: Snapshot | undefined,
    private readonly now: () => number = Date.now,
    firstDiagnostics: readonly Diagnostic[] = [],
  ) {
    this.current = first
      ? { snapshot: first, stale: false, diagnostics: firstDiagnostics, loadedAt: now() }
      : { snapshot: undefined, stale: true, diagnostics: firstDiagnostics, loadedAt: undefined };
  }

  get state(): ConfigState {
    return this.current;
  }

  async start(): Promise<ConfigState> {
    if (!this.current.snapshot) throw new ConfigLoadError(this.origin, this.current.diagnostics);
    return this.current;
  }

  onChange(listener: ConfigListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(): void {
    this.stopped = true;
  }

  /** A new valid configuration, as a watched file or an informer would report it. */
  emit(snapshot: Snapshot): void {
    this.set({ snapshot, stale: false, diagnostics: [], loadedAt: this.now() });
  }

  /** The source now holds something invalid: the last good snapshot keeps running. */
  refuse(diagnostics: readonly Diagnostic[]): void {
    this.set({ ...this.current, stale: true, diagnostics });
  }

  private set(state: ConfigState): void {
    this.current = state;
    if (!this.stopped) for (const listener of [...this.listeners]) listener(state);
  }
}
