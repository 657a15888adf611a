/**
 * Builds a small Go program of test/interop/go/ once per source hash and returns its path. GOPATH mode
 * (GO111MODULE=off) with GOCACHE and GOPATH in a private temp dir, so nothing outside the cache is touched and
 * Debian's golang-go works offline. Binaries are cached under node_modules/.cache/mlb-interop-go/ (or the OS temp
 * dir when node_modules is not writable); a rebuild happens only when the source changes.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const GO_DIR = resolve(HERE, 'go');
const BUILD_TIMEOUT_MS = 110_000;

export interface GoToolchain {
  readonly available: boolean;
  readonly version: string;
}

export function goToolchain(): GoToolchain {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? { available: true, version: r.stdout.trim() } : { available: false, version: '' };
}

/**
 * Outside CI a missing `go` skips with a message; in CI (process.env.CI set) it is a failure, because the
 * interop check is then silently lost.
 */
export function goMissingMessage(): string {
  return 'go is not installed: the bit-for-bit interop tests need Go (Debian: apt-get install golang-go)';
}

function cacheRoot(): string {
  for (const dir of [resolve(HERE, '../../node_modules/.cache/mlb-interop-go'), join(tmpdir(), 'mlb-interop-go')]) {
    try {
      mkdirSync(dir, { recursive: true });
      return dir;
    } catch {
      // not writable: try the next one
    }
  }
  throw new Error('no writable cache directory for Go test programs');
}

/** GOPATH roots searched for library sources: $GOPATH's entries, then Debian's golang-*-dev packages. */
const GOPATH_CANDIDATES = [...(process.env.GOPATH ?? '').split(':').filter(Boolean), '/usr/share/gocode'];

/**
 * The GOPATH root holding `importPath` (e.g. github.com/hashicorp/memberlist from Debian's
 * golang-github-hashicorp-memberlist-dev), or undefined when no candidate has it.
 */
export function goPathWith(importPath: string): string | undefined {
  return GOPATH_CANDIDATES.find((root) => existsSync(join(root, 'src', importPath)));
}

export interface GoBuildOptions {
  /** GOPATH roots with the libraries the program imports (see goPathWith); searched after the private one. */
  readonly gopath?: readonly string[];
}

/** Builds test/interop/go/<name> (if its sources changed) and returns the binary's path. */
export function buildGoProgram(name: string, options: GoBuildOptions = {}): string {
  const srcDir = join(GO_DIR, name);
  const files = readdirSync(srcDir)
    .filter((f) => f.endsWith('.go'))
    .sort();
  const deps = options.gopath ?? [];
  const hash = createHash('sha256');
  hash.update(goToolchain().version);
  hash.update(deps.join(':')).update('\0');
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(join(srcDir, f)))
      .update('\0');
  const binary = join(cacheRoot(), `${name}-${hash.digest('hex').slice(0, 16)}`);
  if (existsSync(binary)) return binary;
  const work = mkdtempSync(join(tmpdir(), 'mlb-go-build-'));
  try {
    const out = join(work, name);
    const r = spawnSync('go', ['build', '-o', out, ...files], {
      cwd: srcDir,
      encoding: 'utf8',
      timeout: BUILD_TIMEOUT_MS,
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOCACHE: join(work, 'gocache'),
        GOPATH: [join(work, 'gopath'), ...deps].join(':'),
        GOFLAGS: '',
      },
    });
    if (r.status !== 0) throw new Error(`go build ${name} failed:\n${r.stderr || r.error?.message}`);
    renameSync(out, binary); // atomic: a parallel run sees the whole binary or none
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs a built program with `input` on stdin (and optional arguments) and returns stdout. */
export function runGoProgram(binary: string, input: string, args: readonly string[] = [], timeoutMs?: number): string {
  const r = spawnSync(binary, args, { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, timeout: timeoutMs });
  if (r.status !== 0) throw new Error(`${binary} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}
