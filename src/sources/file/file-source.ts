/**
 * The YAML file as a live configuration source: the file is watched, every valid edit becomes a new Snapshot,
 * an invalid edit keeps the last good Snapshot running and marks the state stale with the reasons
 * (metallb_k8s_client_config_stale_bool in MetalLB's terms). Not pure: files, watchers and timers.
 *
 * Watching: editors save by writing a temporary file and renaming it over the original, which ends an
 * fs.watch on the file itself, so the directory is watched and events are filtered by name. fs.watch is
 * best-effort (network filesystems, some containers deliver nothing), so a periodic stat compares size,
 * mtime and inode as a fallback. Bursts of events (truncate + write + rename) are debounced into one reload.
 */
import { type FSWatcher, watch } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import {
  type Diagnostic, DiagnosticCode, type ParseOptions, type Snapshot, parseConfig,
} from '../../model';

/** Quiet time after the last change event before reading: editors' save sequences finish well within it. */
export const RELOAD_DEBOUNCE_MS = 200;
/** How often the stat fallback looks at the file when fs.watch misses an event (or never delivers any). */
export const STAT_POLL_INTERVAL_MS = 2_000;

export interface FileSourceState {
  /** The configuration in force: the last valid one; undefined only before the first valid load. */
  readonly snapshot: Snapshot | undefined;
  /** True when the file on disk is not what runs (its last read failed or did not validate). */
  readonly stale: boolean;
  /** The diagnostics of the last read (errors when stale, warnings otherwise). */
  readonly diagnostics: readonly Diagnostic[];
  /** When the running snapshot was loaded (clock milliseconds); undefined before the first valid load. */
  readonly loadedAt: number | undefined;
}

/** Timers, injectable so tests can drive them; defaults are Node's. */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const nodeScheduler: Scheduler = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
};

export interface FileSourceOptions extends ParseOptions {
  readonly debounceMs?: number;
  readonly pollIntervalMs?: number;
  readonly now?: () => number;
  readonly scheduler?: Scheduler;
  /** Off: only the stat poll (for filesystems where fs.watch throws or misbehaves). */
  readonly useFsWatch?: boolean;
}

export type FileSourceListener = (state: FileSourceState) => void;

/** Startup failed: the file is unreadable or invalid; diagnostics say why. */
export class ConfigLoadError extends Error {
  readonly code = 'invalidConfig';
  constructor(readonly file: string, readonly diagnostics: readonly Diagnostic[]) {
    super(`configuration ${file} is not valid (${diagnostics.filter((d) => d.severity === 'error').length} errors)`);
    this.name = 'ConfigLoadError';
  }
}

interface FileIdentity {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
}

export class FileSource {
  private current: FileSourceState = { snapshot: undefined, stale: false, diagnostics: [], loadedAt: undefined };
  private readonly listeners = new Set<FileSourceListener>();
  private readonly path: string;
  /** The path as the caller wrote it, for messages and positions. */
  private readonly displayPath: string;
  private readonly now: () => number;
  private readonly scheduler: Scheduler;
  private watcher: FSWatcher | undefined;
  private pollHandle: unknown;
  private debounceHandle: unknown;
  private lastText: string | undefined;
  private lastIdentity: FileIdentity | undefined;
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;
  private stopped = false;

  constructor(path: string, private readonly options: FileSourceOptions = {}) {
    this.path = resolve(path);
    this.displayPath = path;
    this.now = options.now ?? Date.now;
    this.scheduler = options.scheduler ?? nodeScheduler;
  }

  get state(): FileSourceState {
    return this.current;
  }

  /** Calls `listener` after every change of state; returns the unsubscribe function. */
  onChange(listener: FileSourceListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** First load, then watching. Rejects (ConfigLoadError, or the fs error) when there is nothing valid to run. */
  async start(): Promise<FileSourceState> {
    const text = await readFile(this.path, 'utf8');
    this.lastIdentity = await this.identity();
    this.apply(text);
    if (this.current.snapshot === undefined) throw new ConfigLoadError(this.displayPath, this.current.diagnostics);
    this.watchDirectory();
    this.pollHandle = this.scheduler.setInterval(() => void this.poll(), this.options.pollIntervalMs ?? STAT_POLL_INTERVAL_MS);
    return this.current;
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.pollHandle !== undefined) this.scheduler.clearInterval(this.pollHandle);
    if (this.debounceHandle !== undefined) this.scheduler.clearTimeout(this.debounceHandle);
  }

  /** Reads the file now (also what the watchers end up calling). Concurrent calls coalesce into one more read. */
  async reload(): Promise<FileSourceState> {
    if (this.reloading) {
      this.reloadAgain = true;
      await this.reloading;
      return this.current;
    }
    this.reloading = this.readLoop();
    try {
      await this.reloading;
    } finally {
      this.reloading = undefined;
    }
    return this.current;
  }

  private async readLoop(): Promise<void> {
    do {
      this.reloadAgain = false;
      let text: string;
      try {
        this.lastIdentity = await this.identity();
        text = await readFile(this.path, 'utf8');
      } catch (error) {
        this.lastText = undefined;
        this.setState({
          ...this.current,
          stale: true,
          diagnostics: [{
            severity: 'error', code: DiagnosticCode.fileUnreadable,
            message: `cannot read ${this.displayPath}: ${(error as Error).message}`,
          }],
        });
        continue;
      }
      if (this.stopped) return;
      this.apply(text);
    } while (this.reloadAgain && !this.stopped);
  }

  private apply(text: string): void {
    if (text === this.lastText) return; // touched or rewritten unchanged: nothing new to run
    this.lastText = text;
    const result = parseConfig(text, this.displayPath, this.options);
    if (result.ok) {
      this.setState({ snapshot: result.snapshot, stale: false, diagnostics: result.diagnostics, loadedAt: this.now() });
    } else {
      this.setState({ ...this.current, stale: true, diagnostics: result.diagnostics });
    }
  }

  private setState(state: FileSourceState): void {
    this.current = state;
    for (const listener of [...this.listeners]) listener(state);
  }

  private scheduleReload(): void {
    if (this.stopped) return;
    if (this.debounceHandle !== undefined) this.scheduler.clearTimeout(this.debounceHandle);
    this.debounceHandle = this.scheduler.setTimeout(() => {
      this.debounceHandle = undefined;
      void this.reload();
    }, this.options.debounceMs ?? RELOAD_DEBOUNCE_MS);
  }

  private watchDirectory(): void {
    if (this.options.useFsWatch === false) return;
    const name = basename(this.path);
    try {
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, filename) => {
        // Some platforms omit the name; then any change in the directory may be ours.
        if (filename === null || filename.toString() === name) this.scheduleReload();
      });
      // A vanished directory or a watcher limit: the stat poll carries on alone.
      this.watcher.on('error', () => {
        this.watcher?.close();
        this.watcher = undefined;
      });
    } catch {
      this.watcher = undefined;
    }
  }

  private async identity(): Promise<FileIdentity | undefined> {
    try {
      const s = await stat(this.path);
      return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
    } catch {
      return undefined;
    }
  }

  private async poll(): Promise<void> {
    if (this.stopped || this.reloading) return;
    const now = await this.identity();
    const before = this.lastIdentity;
    const changed = now === undefined || before === undefined
      ? now !== before
      : now.size !== before.size || now.mtimeMs !== before.mtimeMs || now.ino !== before.ino;
    if (changed) this.scheduleReload();
  }
}

/** Convenience: a started FileSource (see FileSource.start for failures). */
export async function watchConfigFile(path: string, options: FileSourceOptions = {}): Promise<FileSource> {
  const source = new FileSource(path, options);
  await source.start();
  return source;
}
