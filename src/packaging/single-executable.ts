/**
 * What the one-file build (dist/mlb, Node's single executable application: scripts/build-sea.mjs) carries inside
 * itself, and whether this process is that build. Everything that would otherwise be a file beside dist/mlb.mjs
 * (the native addons, netlink's binding, the live view, the bundle the parser worker runs) is an asset of the
 * executable, read here; from source or from dist/mlb.mjs none of this is used.
 */
import sea from 'node:sea';

/** The asset names scripts/build-sea.mjs gives each embedded file (its sea-config.json "assets" keys). */
export const EMBEDDED = {
  /** The CommonJS bundle the executable runs, again as text: a worker thread cannot run the main script. */
  bundle: 'mlb.cjs',
  /** The live view of `mlb status` (dist/mlb-tui.mjs): ES module text. */
  statusTui: 'mlb-tui.mjs',
  /** @kubernetes/client-node (dist/mlb-k8s.mjs), loaded by Kubernetes commands only: ES module text. */
  kubernetesClient: 'mlb-k8s.mjs',
  /** netlink's own native binding (its prebuilt node.napi.node). */
  netlinkBinding: 'netlink.node',
} as const;

/** True in dist/mlb, false under `node` (source, tests, dist/mlb.mjs). */
export function runningAsSingleExecutable(): boolean {
  return sea.isSea();
}

/** The asset's bytes, or undefined when this is not the one-file build or the build left it out. */
export function embeddedBytes(name: string): Uint8Array | undefined {
  if (!runningAsSingleExecutable()) return undefined;
  // getAsset throws for a name the build did not embed.
  try {
    return new Uint8Array(sea.getAsset(name));
  } catch {
    return undefined;
  }
}

/** The asset as UTF-8 text (the bundle, the live view), or undefined as for embeddedBytes. */
export function embeddedText(name: string): string | undefined {
  if (!runningAsSingleExecutable()) return undefined;
  try {
    return sea.getAsset(name, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * How to run this same mlb again (the lab's daemons and web servers, `mlb install`'s closing checks): the one-file
 * executable alone (its argv[1] is itself, not a script), or node with its flags and the bundle (or the TypeScript
 * entry under a loader in development). Undefined when neither can be told.
 */
export function selfCommand(): string[] | undefined {
  if (runningAsSingleExecutable()) return [process.execPath];
  const script = process.argv[1];
  return script ? [process.execPath, ...process.execArgv, script] : undefined;
}
