/**
 * Finds and loads one native module (a node-gyp target), once, on first use, and never throws: importing
 * src/native must not fail on a host without the build, so each caller turns a missing module into its own
 * error when a feature needs it. native-addon.ts (mlb_native.node) and udp-ttl.ts (mlb_udp_ttl.node) load
 * through here.
 *
 * Where it looks, relative to this module's own file (import.meta.url):
 * - from source (vitest, tsx): src/native/ -> ../../build/Release/
 * - from the bundle dist/mlb.mjs: dist/<file> (scripts/build.mjs copies it there), then ../build/Release/
 * The override variable names another file (a packager's layout); it is tried first.
 * In the one-file build (dist/mlb) the module is an asset of the executable instead, loaded from a private copy
 * (embedded-addon.ts); only the override is looked for on disk there.
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningAsSingleExecutable } from '../packaging/single-executable';
import type { AddonStatus } from './addon-status';
import { loadEmbeddedAddon } from './embedded-addon';

export interface AddonSpec {
  /** The module's file name, e.g. mlb_native.node. */
  readonly fileName: string;
  /** The environment variable whose value, when set, is tried before the usual places. */
  readonly overrideEnv: string;
  /** Appended to "no <fileName> found", e.g. how to build it. */
  readonly missingHint?: string;
}

export interface LoadedAddon<T> {
  readonly status: AddonStatus;
  /** Set exactly when status.loaded. */
  readonly addon: T | undefined;
}

/** One load attempt per file name for the life of the process: a failed dlopen is not retried. */
const loads = new Map<string, LoadedAddon<unknown>>();

/** Where `fileName` is looked for, in order (the override first when its variable is set). */
export function addonCandidates(fileName: string, overrideEnv: string): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [
    join(here, fileName),
    join(here, '..', 'build', 'Release', fileName),
    join(here, '..', '..', 'build', 'Release', fileName),
  ];
  const override = process.env[overrideEnv];
  return override ? [override, ...candidates] : candidates;
}

/** Loads the module if it has not been tried yet; never throws. */
export function loadAddon<T>(spec: AddonSpec): LoadedAddon<T> {
  const cached = loads.get(spec.fileName);
  if (cached) return cached as LoadedAddon<T>;
  const loaded = tryLoad<T>(spec);
  loads.set(spec.fileName, loaded);
  return loaded;
}

function tryLoad<T>(spec: AddonSpec): LoadedAddon<T> {
  if (runningAsSingleExecutable() && !process.env[spec.overrideEnv]) return loadEmbeddedAddon<T>(spec.fileName);
  const looked = addonCandidates(spec.fileName, spec.overrideEnv);
  const path = looked.find((p) => existsSync(p));
  if (path === undefined) {
    const hint = spec.missingHint ? ` ${spec.missingHint}` : '';
    return { status: { loaded: false, why: `no ${spec.fileName} found${hint}`, looked }, addon: undefined };
  }
  try {
    const module = { exports: {} as T };
    process.dlopen(module, path, constants.dlopen.RTLD_NOW);
    return { status: { loaded: true, path }, addon: module.exports };
  } catch (error) {
    return { status: { loaded: false, why: `${path} did not load: ${(error as Error).message}`, looked }, addon: undefined };
  }
}
