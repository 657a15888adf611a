/**
 * A ConfigSource whose module is loaded only when it starts: the Kubernetes source brings @kubernetes/client-node,
 * which takes longer to load than every other part of `mlb` together, and no command but `mlb daemon --kubernetes`
 * needs it. Until start() has created the real source, the state is the empty one and the names are the ones given.
 */
import type { ConfigListener, ConfigSource, ConfigState } from './config-source';

const NOT_STARTED: ConfigState = { snapshot: undefined, stale: false, diagnostics: [], loadedAt: undefined };

export class DeferredConfigSource implements ConfigSource {
  private inner: ConfigSource | undefined;
  private readonly listeners = new Set<ConfigListener>();
  private stopped = false;

  constructor(
    private readonly names: { readonly origin: string; readonly loadingStep: string },
    private readonly create: () => Promise<ConfigSource>,
  ) {}

  get origin(): string {
    return this.inner?.origin ?? this.names.origin;
  }

  get loadingStep(): string {
    return this.inner?.loadingStep ?? this.names.loadingStep;
  }

  get state(): ConfigState {
    return this.inner?.state ?? NOT_STARTED;
  }

  async start(): Promise<ConfigState> {
    const inner = (this.inner ??= await this.create());
    if (this.stopped) throw new Error(`stopped before ${this.origin} was read`);
    inner.onChange((state) => {
      for (const listener of [...this.listeners]) listener(state);
    });
    return inner.start();
  }

  onChange(listener: ConfigListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.inner?.stop();
  }
}
