// Builds dist/mlb: one executable file that runs on a Linux host with no Node.js and no node_modules, as a Node.js
// single executable application (https://nodejs.org/api/single-executable-applications.html): a copy of this
// node binary with a blob injected by postject. The blob holds the CLI and daemon as one CommonJS script (a single
// executable runs CommonJS only) and, as assets: that same script again (the configuration parser's worker thread
// runs it), the live view (dist/mlb-tui.mjs), the Kubernetes client (dist/mlb-k8s.mjs), mlb's two native addons and netlink's native binding. The addons
// are loaded from private copies at run time (src/native/private-addon-copy.ts), never from a shared path.
//
// Run after build.mjs (it needs dist/mlb-tui.mjs and build/Release/*.node): `npm run build` does both.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  asciiStringWidth,
  common,
  KUBERNETES_CLIENT_FILE,
  kubernetesClientBesideBundle,
  TUI_FILE,
  tuiBesideBundle,
} from './bundle-options.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const OUTPUT = join(root, 'dist', 'mlb');
const WORK = join(root, 'dist', 'sea');
const SCRIPT = join(WORK, 'mlb.cjs');
const BLOB = join(WORK, 'mlb.blob');
const CONFIG = join(WORK, 'sea-config.json');
/** The fuse string Node's binary carries; postject flips it so node knows a blob is present (Node's SEA docs). */
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
/** The ELF note postject writes the blob to, and where node looks for it. */
const SEA_RESOURCE = 'NODE_SEA_BLOB';
/** The asset names are src/packaging/single-executable.ts's EMBEDDED (and the addon file names themselves). */
const ADDONS = ['mlb_native.node', 'mlb_udp_ttl.node'];

/**
 * In the executable, `netlink` is bundled (there is no node_modules to require it from): netlink-module.ts's
 * createRequire becomes a plain require that esbuild follows, and the package's `require('node-gyp-build')(dir)`,
 * which looks for its binding on disk, becomes netlink-embedded-binding.ts, which loads the embedded copy.
 */
const netlinkEmbedded = {
  name: 'netlink-embedded',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]native[\\/]netlink-module\.ts$/ }, () => ({
      contents: "export function requireNetlink() { return require('netlink'); }",
      loader: 'js',
    }));
    b.onResolve({ filter: /^node-gyp-build$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]netlink[\\/]/.test(args.importer)) return undefined;
      return { path: 'netlink-binding', namespace: 'mlb-sea' };
    });
    b.onLoad({ filter: /^netlink-binding$/, namespace: 'mlb-sea' }, () => ({
      contents: `module.exports = () => require(${JSON.stringify(join(root, 'src/native/netlink-embedded-binding.ts'))}).netlinkBinding();`,
      loader: 'js',
      resolveDir: root,
    }));
  },
};

/** The file node-gyp-build would load for netlink here (its prebuilt binary for this platform, or a local build). */
function netlinkBindingFile() {
  const netlinkDir = dirname(require.resolve('netlink/package.json'));
  const nodeGypBuild = createRequire(join(netlinkDir, 'package.json'))('node-gyp-build');
  return nodeGypBuild.path(netlinkDir);
}

async function bundleScript() {
  await build({
    ...common,
    format: 'cjs',
    entryPoints: [join(root, 'src/cli/main.ts')],
    outfile: SCRIPT,
    sourcemap: false,
    // import.meta does not exist in CommonJS: the modules that ask for their own URL get the executable's (they
    // use it only to look beside themselves, which the executable replaces with its assets).
    define: { ...common.define, 'import.meta.url': '__mlbModuleUrl' },
    banner: { js: 'var __mlbModuleUrl = require("node:url").pathToFileURL(process.execPath).href;' },
    plugins: [tuiBesideBundle, kubernetesClientBesideBundle, netlinkEmbedded, asciiStringWidth],
  });
}

function assets() {
  const files = {
    'mlb.cjs': SCRIPT,
    [TUI_FILE]: join(root, 'dist', TUI_FILE),
    [KUBERNETES_CLIENT_FILE]: join(root, 'dist', KUBERNETES_CLIENT_FILE),
    'netlink.node': netlinkBindingFile(),
  };
  for (const addon of ADDONS) {
    const built = join(root, 'build', 'Release', addon);
    // Like dist/mlb.mjs, the executable runs without an addon that was not built; what needs it says why.
    if (existsSync(built)) files[addon] = built;
    else console.warn(`build-sea: ${built} is missing (npm rebuild builds it); dist/mlb will lack it`);
  }
  for (const [name, file] of Object.entries(files)) {
    if (!existsSync(file)) throw new Error(`build-sea: ${file} (asset ${name}) is missing: run scripts/build.mjs first`);
  }
  return files;
}

/**
 * node's own binary carries its symbol table and some debug information (13 MB of its 99 MB here), which only a
 * debugger uses. strip keeps the dynamic symbol table, through which native addons find Node-API, so they still
 * load. Without binutils the executable is just larger.
 */
function stripSymbols(file) {
  try {
    execFileSync('strip', [file], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    console.warn(`build-sea: strip failed (${error.message.split('\n')[0]}); dist/mlb keeps node's symbols`);
  }
}

export async function buildSingleExecutable() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  await bundleScript();
  writeFileSync(
    CONFIG,
    JSON.stringify(
      {
        main: SCRIPT,
        output: BLOB,
        disableExperimentalSEAWarning: true,
        // V8's compiled form of the script is stored with it: the executable skips compiling the bundle at each start.
        useCodeCache: true,
        assets: assets(),
      },
      null,
      2,
    ),
  );
  execFileSync(process.execPath, ['--experimental-sea-config', CONFIG], { stdio: ['ignore', 'ignore', 'inherit'] });
  const tmp = `${OUTPUT}.tmp`;
  copyFileSync(process.execPath, tmp);
  chmodSync(tmp, 0o755);
  stripSymbols(tmp);
  const { inject } = require('postject');
  await inject(tmp, SEA_RESOURCE, readFileSync(BLOB), { sentinelFuse: SEA_FUSE });
  // Rename over the old file: a daemon running the old one keeps its pages (as build.mjs does for the addons).
  renameSync(tmp, OUTPUT);
  rmSync(WORK, { recursive: true, force: true });
  console.log(`built dist/mlb (one executable, node ${process.version})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildSingleExecutable();
