// What every esbuild bundle of mlb shares: dist/mlb.mjs, dist/mlb-tui.mjs and dist/mlb-k8s.mjs (build.mjs), and the CommonJS
// bundle inside the one-file executable dist/mlb (build-sea.mjs).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';

export const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

function gitCommit() {
  if (process.env.MLB_COMMIT) return process.env.MLB_COMMIT;
  try {
    const sha = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${sha}-dirty` : sha;
  } catch {
    console.error('build: cannot read the git commit (no git checkout?); set MLB_COMMIT to the commit being built');
    process.exit(1);
  }
}

/** The TUI's entry, as src/cli/commands/import-status-tui.ts imports it, and the file it becomes beside dist/mlb.mjs. */
export const TUI_ENTRY = 'src/cli/tui/run-status-tui.ts';
export const TUI_FILE = 'mlb-tui.mjs';
/** In the bundle, `import('../tui/run-status-tui')` stays a dynamic import, of ./mlb-tui.mjs beside it. */
export const tuiBesideBundle = {
  name: 'tui-beside-bundle',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/tui\/run-status-tui$/ }, () => ({ path: `./${TUI_FILE}`, external: true }));
  },
};

/** The parts of @kubernetes/client-node mlb uses, bundled alone, and the file they become beside dist/mlb.mjs. */
export const KUBERNETES_CLIENT_ENTRY = 'src/sources/k8s/api/client-node-exports.ts';
export const KUBERNETES_CLIENT_FILE = 'mlb-k8s.mjs';
const CLIENT_NODE_LOADER = /[\\/]src[\\/]sources[\\/]k8s[\\/]api[\\/]client-node-module\.ts$/;
const CLIENT_NODE_EXPORTS = /[\\/]src[\\/]sources[\\/]k8s[\\/]api[\\/]client-node-exports\.ts$/;
/**
 * In the bundle, client-node-module.ts's `import('./client-node-exports')` stays a dynamic import, of
 * ./mlb-k8s.mjs beside it: 5 MB that only Kubernetes commands load. Any other import of the package's values would
 * pull it back into every start of mlb, so the build refuses it (imports of types only are erased before this).
 */
export const kubernetesClientBesideBundle = {
  name: 'kubernetes-client-beside-bundle',
  setup(b) {
    b.onResolve({ filter: /^\.\/client-node-exports$/ }, (args) =>
      args.kind === 'dynamic-import' && CLIENT_NODE_LOADER.test(args.importer)
        ? { path: `./${KUBERNETES_CLIENT_FILE}`, external: true }
        : undefined,
    );
    b.onResolve({ filter: /^@kubernetes\/client-node$/ }, (args) => {
      if (CLIENT_NODE_EXPORTS.test(args.importer)) return undefined;
      return {
        errors: [
          {
            text: `${args.importer} imports @kubernetes/client-node: take it from src/sources/k8s/api/client-node-module.ts (clientNode()), which loads dist/${KUBERNETES_CLIENT_FILE} only when needed`,
          },
        ],
      };
    });
  },
};

/**
 * string-width 7 (what yargs' help layout measures every cell with) builds emoji-regex's whole regular expression
 * anew for each character it measures: laying out `mlb --help` took longer than loading the rest of mlb. A string
 * of printable ASCII alone is exactly as wide as it is long (no control, combining, emoji or East Asian wide
 * character can be in it), so those are answered at once; every other string still goes to the package, whose
 * Intl.Segmenter is made on first use instead of at start.
 */
const PRINTABLE_ASCII = '/^[\\x20-\\x7e]*$/';
const RGI_EMOJI = 'const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;';
export const asciiStringWidth = {
  name: 'ascii-string-width',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/](?:.*[\\/])?string-width[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const exported = /export default function stringWidth\(/;
      if (!exported.test(source))
        throw new Error(`${args.path}: string-width no longer exports 'function stringWidth(': update asciiStringWidth`);
      const segmenter = 'const segmenter = new Intl.Segmenter();';
      const usesRgiEmoji = source.includes('rgiEmojiRegex');
      if (usesRgiEmoji && (!source.includes(RGI_EMOJI) || /rgiEmojiRegex\.(?!test\()/.test(source))) {
        throw new Error(
          `${args.path}: string-width's rgiEmojiRegex is no longer '${RGI_EMOJI}' used with .test() only: update asciiStringWidth`,
        );
      }
      if (!source.includes(segmenter))
        throw new Error(`${args.path}: string-width no longer makes its segmenter as '${segmenter}': update asciiStringWidth`);
      return {
        contents:
          source
            .replace(exported, 'function packageStringWidth(')
            // The segmenter is made when a string needs it, not when mlb starts: making one loads ICU's break
            // iterator data, some 10 ms of every start, for strings that are nearly always printable ASCII.
            .replace(segmenter, 'let made;\nconst segmenter = { segment: (text) => (made ??= new Intl.Segmenter()).segment(text) };')
            // Likewise string-width 8's emoji pattern (Unicode's RGI_Emoji, a property of strings: some 30 ms to
            // build), which it only ever .test()s.
            .replace(
              RGI_EMOJI,
              'let rgi;\nconst rgiEmojiRegex = { test: (text) => (rgi ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(text) };',
            ) +
          `\nconst PRINTABLE_ASCII = ${PRINTABLE_ASCII};\n` +
          'export default function stringWidth(input, options) {\n' +
          "  return typeof input === 'string' && PRINTABLE_ASCII.test(input) ? input.length : packageStringWidth(input, options);\n" +
          '}\n',
        loader: 'js',
      };
    });
  },
};

export const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  legalComments: 'none',
  // Error classes take their name from new.target (src/errors/coded-error.ts): two classes of one name in the
  // bundle must not be renamed to Foo2 in logs.
  keepNames: true,
  define: {
    __MLB_VERSION__: JSON.stringify(pkg.version),
    __MLB_COMMIT__: JSON.stringify(gitCommit()),
    // What `mlb install` writes to a host (src/cli/install/embedded-files.ts): dist/mlb has no repository beside it.
    __MLB_SYSTEMD_UNIT__: JSON.stringify(readFileSync(new URL('../systemd/mlb.service', import.meta.url), 'utf8')),
    __MLB_ENV_EXAMPLE__: JSON.stringify(readFileSync(new URL('../examples/mlb.env', import.meta.url), 'utf8')),
  },
  logLevel: 'warning',
};
