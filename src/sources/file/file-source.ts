/**
 * The YAML file as a live configuration source: the file is watched, every valid edit becomes a new Snapshot,
 * an invalid edit keeps the last good Snapshot running and marks the state stale with the reasons
 * (metallb_k8s_client_config_stale_bool in MetalLB's terms). Not pure: files, watchers and timers.
 *
 * --config may name a directory: its *.yaml and *.yml files, joined in name order, are the configuration
 * (config-directory.ts); each file is read with the checks below, the directory itself is watched, and the
 * stat poll compares every file's size, mtime and inode.
 *
 * Watching: editors save by writing a temporary file and renaming it over the original, which ends an
 * fs.watch on the file itself, so the directory is watched and events are filtered by name. fs.watch is
 * best-effort (network filesystems, some containers deliver nothing), so a periodic stat compares size,
 * mtime and inode as a fallback. Bursts of events (truncate + write + rename) are debounced into one reload.
 *
 * Reading: a writer that truncates and rewrites in place (`cat > mlb.yaml`, scp, many tools) leaves moments where
 * the file is empty or half written. A reload therefore waits until size and mtime stay unchanged for a settle
 * time, reads the file once (read-config-file.ts: only regular files, bounded size, nothing that can block), and
 * refuses what still looks incomplete (config-file-checks.ts). Parsing is injected (config-parser.ts): the daemon
 * parses on a worker thread, so no file, however large, stalls the event loop.
 */
import { type FSWatcher, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { DiagnosticCode, type DocumentCache, type ParseOptions, errorsFirst } from '../../model';
import { REAL_RUNTIME, type Clock, type Scheduler, type Timer } from '../../runtime';
import { type ConfigListener, ConfigLoadError, type ConfigSource, type ConfigState } from '../config-source';
import { DEFAULT_MAX_CONFIG_BYTES } from './config-file-checks';
import { type ConfigParser, parseInProcess } from './config-parser';
import { type ParseOutcome, parseConfigFileBytes } from './load-config-file';
import { type ConfigSourceRead, isDirectory, readConfigSource, statSource, statSourceIdentity } from './read-config-source';

/** How often the stat fallback looks at the file when fs.watch misses an event (or never delivers any). */
const STAT_POLL_INTERVAL_MS = 2_000;
/**
 * How long size, mtime and inode must stay unchanged before the file is read. A writer's successive write()s
 * land microseconds to milliseconds apart (a shell redirection, a copy, a network transfer of a config file),
 * so a file unchanged for this long is almost certainly finished; what is not is refused by the content checks.
 */
const CONFIG_SETTLE_MS = 150;
/**
 * Quiet time after the last change event before reading: editors' save sequences finish well within it. The
 * settle time, not more: by then a file written once has been unchanged that long and is read at once (its
 * ctime says so, settledRead), while one still being written is waited for by the settle rule anyway. At 200 ms
 * every edit waited 50 ms that guarded nothing.
 */
const RELOAD_DEBOUNCE_MS = CONFIG_SETTLE_MS;
/**
 * A file that never settles (rewritten in a loop, appended to like a log) is reported stale after this long
 * rather than waited for forever; the next change notice starts a new wait.
 */
const MAX_SETTLE_WAIT_MS = 10_000;

/** The file source's state is every source's (config-source.ts); the name stays for the file's own callers. */
export type FileSourceState = ConfigState;

export interface FileSourceOptions extends ParseOptions {
  readonly debounceMs?: number;
  readonly pollIntervalMs?: number;
  /** How long the file must stay unchanged before it is read (CONFIG_SETTLE_MS); 0 reads at once. */
  readonly settleMs?: number;
  /** Files larger than this are refused (DEFAULT_MAX_CONFIG_BYTES, --max-config-bytes). */
  readonly maxBytes?: number;
  /** Where the text is parsed: in-process by default, a worker thread in the daemon (worker-parser.ts). */
  readonly parse?: ConfigParser;
  /**
   * Where the first load is parsed (default: `parse`). The daemon parses it in-process: at start nothing runs yet
   * that a busy event loop would delay (no gossip, no ARP answers), so a worker thread's start-up and the copy of
   * its answer would only make the start slower.
   */
  readonly firstParse?: ConfigParser;
  /** The clock `loadedAt` reads and the timers the debounce, settle wait and stat poll run on (default: real). */
  readonly runtime?: Clock & Scheduler;
  /** Off: only the stat poll (for filesystems where fs.watch throws or misbehaves). */
  readonly useFsWatch?: boolean;
}

export type FileSourceListener = ConfigListener;

export { ConfigLoadError };

export class FileSource implements ConfigSource {
  private current: FileSourceState = { snapshot: undefined, stale: false, diagnostics: [], loadedAt: undefined };
  private readonly listeners = new Set<FileSourceListener>();
  private readonly path: string;
  /** The path as the caller wrote it, for messages and positions. */
  private readonly displayPath: string;
  private readonly runtime: Clock & Scheduler;
  private readonly parse: ConfigParser;
  private watcher: FSWatcher | undefined;
  private poller: Timer | undefined;
  private debounce: Timer | undefined;
  /** sha256 of the content last parsed: a rewrite with the same content announces nothing. */
  private lastDigest: string | undefined;
  /**
   * What the last in-process parse read of each document: a reload reads again only the documents that changed
   * (model/parse/document-cache.ts). One parse's worth, replaced by each parse (dropped by a worker's, which keeps
   * none), so it does not grow across reloads.
   */
  private documents: DocumentCache | undefined;
  private lastIdentity: string | undefined;
  /** --config named a directory: its *.yaml and *.yml files are the configuration (config-directory.ts). */
  private directory = false;
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;
  private stopped = false;
  /** Cancels the parse in progress (its worker thread) when the source stops. */
  private readonly parsing = new AbortController();

  constructor(
    path: string,
    private readonly options: FileSourceOptions = {},
  ) {
    this.path = resolve(path);
    this.displayPath = path;
    this.runtime = options.runtime ?? REAL_RUNTIME;
    this.parse = options.parse ?? parseInProcess;
  }

  get origin(): string {
    return this.displayPath;
  }

  get loadingStep(): string {
    return `reading the configuration file ${this.displayPath}`;
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
    this.directory = await isDirectory(this.path).catch(() => false);
    await this.apply(await this.settledRead(), this.options.firstParse ?? this.parse);
    if (this.current.snapshot === undefined) throw new ConfigLoadError(this.displayPath, this.current.diagnostics);
    this.watchDirectory();
    this.poller = this.runtime.every(this.options.pollIntervalMs ?? STAT_POLL_INTERVAL_MS, () => void this.poll());
    return this.current;
  }

  /** Stops watching and cancels a parse in progress (a worker thread is terminated, not waited for). */
  stop(): void {
    this.stopped = true;
    this.parsing.abort();
    this.watcher?.close();
    this.watcher = undefined;
    this.poller?.cancel();
    this.debounce?.cancel();
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
      let read: ConfigSourceRead;
      try {
        read = await this.settledRead();
      } catch (error) {
        this.lastDigest = undefined;
        this.lastIdentity = undefined;
        this.setState({
          ...this.current,
          stale: true,
          diagnostics: [
            {
              severity: 'error',
              code: DiagnosticCode.fileUnreadable,
              message: `cannot read ${this.displayPath}: ${(error as Error).message}`,
            },
          ],
        });
        continue;
      }
      if (this.stopped) return;
      await this.apply(read, this.parse);
    } while (this.reloadAgain && !this.stopped);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((done) => this.runtime.after(ms, done));
  }

  /**
   * Waits until the file's size, mtime and inode stay the same for settleMs, then reads it once; a file that
   * changed while being read is waited for again. Rejects with the fs error when the file cannot be opened.
   */
  private async settledRead(): Promise<ConfigSourceRead> {
    const settleMs = this.options.settleMs ?? CONFIG_SETTLE_MS;
    const maxBytes = this.options.maxBytes ?? DEFAULT_MAX_CONFIG_BYTES;
    const rounds = settleMs > 0 ? Math.ceil(MAX_SETTLE_WAIT_MS / settleMs) : 1;
    const first = await statSource(this.path);
    let seen = first?.identity;
    // Untouched for settleMs already (its ctime says so): settled without waiting. A file written a while ago, the
    // usual start, is read at once, and so is an edit whose debounce outlasted the settle time.
    const settledSince = first !== undefined && this.runtime.now() - first.touchedMs >= settleMs;
    for (let round = 1; ; round++) {
      if (settleMs > 0 && !(round === 1 && settledSince)) {
        await this.sleep(settleMs);
        const now = await statSourceIdentity(this.path);
        const settled = now === seen;
        seen = now;
        if (!settled && round < rounds) continue;
        if (!settled) return this.neverSettled(now);
      }
      const read = await readConfigSource(this.path, this.displayPath, maxBytes);
      this.lastIdentity = read.identity ?? seen;
      if (read.ok || !read.changing || round >= rounds || this.stopped) return read;
      seen = read.identity;
    }
  }

  private neverSettled(identity: string | undefined): ConfigSourceRead {
    this.lastIdentity = identity;
    return {
      ok: false,
      changing: true,
      diagnostic: {
        severity: 'error',
        code: DiagnosticCode.fileChanging,
        message:
          `${this.displayPath} kept changing for ${MAX_SETTLE_WAIT_MS / 1000} s; mlb reads it once it stays ` +
          `unchanged for ${this.options.settleMs ?? CONFIG_SETTLE_MS} ms. Replace it atomically (write a temporary ` +
          `file beside it, then rename it over ${this.displayPath})`,
      },
    };
  }

  private async apply(read: ConfigSourceRead, parse: ConfigParser): Promise<void> {
    if (!read.ok) {
      this.lastDigest = undefined;
      this.setState({ ...this.current, stale: true, diagnostics: [read.diagnostic] });
      return;
    }
    let parsed: ParseOutcome;
    try {
      const reuse = { documents: this.documents };
      parsed = await parseConfigFileBytes(read.bytes, this.displayPath, parse, this.options, this.parsing.signal, read.parts, reuse);
    } catch (error) {
      if (this.stopped) return; // the parse was cancelled by stop()
      throw error;
    }
    if (this.stopped) return;
    this.documents = parsed.documents;
    // Touched or rewritten unchanged: nothing new to run. (A parse that could not finish has no digest, so the
    // same content is tried again on the next notice.)
    if (parsed.digest !== undefined && parsed.digest === this.lastDigest) return;
    this.lastDigest = parsed.digest;
    const { result } = parsed;
    if (result.ok) {
      this.setState({ snapshot: result.snapshot, stale: false, diagnostics: result.diagnostics, loadedAt: this.runtime.now() });
    } else {
      this.setState({ ...this.current, stale: true, diagnostics: errorsFirst(result.diagnostics) });
    }
  }

  private setState(state: FileSourceState): void {
    this.current = state;
    for (const listener of [...this.listeners]) listener(state);
  }

  private scheduleReload(): void {
    if (this.stopped) return;
    this.debounce?.cancel();
    this.debounce = this.runtime.after(this.options.debounceMs ?? RELOAD_DEBOUNCE_MS, () => {
      this.debounce = undefined;
      void this.reload();
    });
  }

  private watchDirectory(): void {
    if (this.options.useFsWatch === false) return;
    const name = basename(this.path);
    // A file: its directory, for the file's name. A directory of files: itself, and any change in it may be ours
    // (a Kubernetes ConfigMap volume swaps its hidden ..data link, not the files' names); the digest check makes a
    // change to another file cost one read.
    const ours = this.directory ? () => true : (changed: string) => changed === name;
    try {
      this.watcher = watch(this.directory ? this.path : dirname(this.path), { persistent: false }, (_event, filename) => {
        // Some platforms omit the name; then any change in the directory may be ours.
        if (filename === null || ours(filename.toString())) this.scheduleReload();
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

  private async poll(): Promise<void> {
    if (this.stopped || this.reloading) return;
    if ((await statSourceIdentity(this.path)) !== this.lastIdentity) this.scheduleReload();
  }
}
