#!/usr/bin/env node
/**
 * The structure check: keeps src/ shaped as docs/architecture.md describes it. `npm test` runs it before vitest;
 * run it alone with `npm run check:structure` (or `node scripts/check-structure.mjs [ROOT]` for another tree).
 *
 * It reads every ROOT/src/**\/*.ts with TypeScript's parser (imports, `import type`, `export ... from`,
 * `import()` and `require()`) and fails, naming file and line, when:
 *
 * 1. Source files import each other in a cycle. A cycle means neither side can be understood, tested or moved
 *    alone, and a runtime cycle makes module initialisation order matter. Type-only and dynamic imports count
 *    too: they are still a dependency in the reader's head. The one exception is KNOWN_CYCLE_EDGES below, each
 *    entry with why it is there; an entry that no longer closes a cycle is reported so it can be deleted.
 *
 * 2. A pure module reaches for I/O. Pure (docs/architecture.md, "Rooms"): synchronous, no sockets, timers,
 *    files or logging; time, randomness and I/O are injected. The pure modules are PURE_FOLDERS and PURE_FILES
 *    (the codecs and state machines of folders whose shell is not pure). A pure module may import:
 *      - other pure modules (a pure module importing an adapter is the one thing the layering forbids);
 *      - the packages in PURE_MAY_IMPORT, each a computation with no I/O (the reason is beside each);
 *    and it may not use the ambient clock, timers, randomness, process or console (AMBIENT below): those are
 *    exactly what the driver injects, so using them directly makes the module untestable on virtual time.
 *    A deliberate exception goes in AMBIENT_ALLOWED with its reason.
 *
 * 3. A module outside the runtime and the CLI does I/O of its own: it imports node:net, node:dgram, node:http,
 *    node:https, node:http2, node:tls or node:timers (type-only imports too: a type from them ties the module to
 *    Node's sockets just the same), or calls setTimeout, setInterval or setImmediate. Sockets, servers and timers
 *    reach every daemon module through the runtime seam (src/runtime/: the real implementations, the virtual one,
 *    and the interfaces both implement, docs/architecture.md "The runtime seam"), so each can run on virtual
 *    time or a fake network and nothing binds a socket behind the seam's back. IO_BOUNDARY_OWNERS names the
 *    folders that may (the runtime implements the seam; the CLI is the process's own edge); a method of an
 *    object named setTimeout (a socket option) is not a timer and is not matched. Comments are not code: the
 *    parser never sees them.
 *
 * The check is fast (a parse, no type checking): well under a few seconds for the whole tree.
 * `node scripts/check-structure.mjs --rules` prints the pure modules and what each allowance is for.
 */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Folders whose every file is pure (docs/architecture.md "Rooms", src/gossip/README.md, src/announce/README.md). */
export const PURE_FOLDERS = [
  'src/ip',
  'src/model',
  'src/allocator',
  'src/election',
  'src/errors',
  'src/gossip/codec',
  'src/gossip/swim',
  'src/announce/bgp/codec',
  'src/announce/bgp/speaker',
  // The virtual runtime: virtual time and an in-memory network; no sockets, no real timers (one turn, see below).
  'src/runtime/virtual',
];

/**
 * Pure files in folders that also hold their I/O shell: "codecs and FSMs pure; sockets not"
 * (src/announce/README.md). The sockets, netlink and timers of those folders live in the files not listed.
 */
export const PURE_FILES = [
  // The runtime seam's interfaces and its error; real-*.ts are the shell that implements them on Node.
  'src/runtime/runtime.ts',
  'src/runtime/network-error.ts',
  // The host facilities' interfaces (MD5-signable TCP, TTL-aware UDP, HTTP); real-*.ts implement them on Node.
  'src/runtime/host-io.ts',
  'src/runtime/signed-tcp.ts',
  'src/runtime/ttl-udp.ts',
  'src/runtime/http.ts',
  // The state-files seam's interface; the directory implementation is the daemon's (src/daemon/directory-state-files.ts).
  'src/runtime/state-files.ts',
  // The (time, order) min-heap both agendas keep: the gossip simulation's events and the self-check's probes.
  'src/runtime/time-order-heap.ts',
  // Gossip: the message types and mlb's node meta; transport/ and gossip-node.ts are the shell.
  'src/gossip/messages.ts',
  'src/gossip/node-meta.ts',
  'src/gossip/member-facts.ts',
  // BFD (RFC 5880/5881): the control packet and the session reducer; bfd-socket/bfd-endpoint/bfd-peer are the shell.
  'src/announce/bfd/bfd-profile.ts',
  'src/announce/bfd/bfd-packet.ts',
  'src/announce/bfd/bfd-session.ts',
  'src/announce/bfd/bfd-timers.ts',
  'src/announce/bfd/bfd-drop-reasons.ts',
  'src/announce/bfd/bfd-error.ts',
  // BGP session (RFC 4271): the state machine; bgp-session/session-connection/bgp-listener hold the TCP shell.
  'src/announce/bgp/session/session-fsm.ts',
  'src/announce/bgp/session/session-config.ts',
  'src/announce/bgp/session/session-state.ts',
  'src/announce/bgp/session/session-events.ts',
  'src/announce/bgp/session/session-effects.ts',
  'src/announce/bgp/session/session-draft.ts',
  'src/announce/bgp/session/session-receive.ts',
  'src/announce/bgp/session/session-errors.ts',
  'src/announce/bgp/session/open-message.ts',
  'src/announce/bgp/session/open-validation.ts',
  'src/announce/bgp/session/collision.ts',
  'src/announce/bgp/session/connect-backoff.ts',
  'src/announce/bgp/bgp-messages.ts',
  // Layer 2: the Ethernet/ARP/NDP codecs, the responder rules and the gratuitous schedule; the announcer is the shell.
  'src/announce/l2/ethernet.ts',
  'src/announce/l2/arp-packet.ts',
  'src/announce/l2/ndp-packet.ts',
  'src/announce/l2/ndp-options.ts',
  'src/announce/l2/ipv6-icmpv6.ts',
  'src/announce/l2/checksum.ts',
  'src/announce/l2/mac-address.ts',
  'src/announce/l2/solicited-node.ts',
  'src/announce/l2/drop-reasons.ts',
  'src/announce/l2/arp-responder.ts',
  'src/announce/l2/ndp-responder.ts',
  'src/announce/l2/gratuitous-schedule.ts',
  'src/announce/l2/l2-announcer-state.ts',
  'src/announce/l2/l2-interface.ts',
  'src/announce/l2/interfaces/interface-selection.ts',
  // VIP binding on plain hosts: the plans are pure; vip-binder/vip-link/arp-sysctls apply them through netlink and /proc.
  'src/announce/addr/vip-plan.ts',
  'src/announce/addr/arp-sysctl-plan.ts',
  // The configuration file: parsing bytes already read is pure; reading, watching and the worker are the shell.
  'src/sources/file/parse-config-bytes.ts',
  'src/sources/file/config-parser.ts',
  'src/sources/file/config-file-checks.ts',
  'src/sources/file/config-directory.ts',
  'src/sources/file/answer-chunks.ts',
  // The Kubernetes controller: the reconcile (Services, pool status, ConfigurationState, memberlist Secret) is
  // pure; the API writer, the watches and the command around it are the shell.
  'src/controller/api-objects.ts',
  'src/controller/cluster-family.ts',
  'src/controller/go-text.ts',
  'src/controller/service-view.ts',
  'src/controller/controller-events.ts',
  'src/controller/service-prechecks.ts',
  'src/controller/service-status.ts',
  'src/controller/reconcile-services.ts',
  'src/controller/pool-status.ts',
  'src/sources/k8s/api/json-int64.ts',
  'src/controller/configuration-state.ts',
  'src/controller/configuration-choice.ts',
  'src/controller/memberlist-secret.ts',
  'src/controller/event-correlator.ts',
  // The Kubernetes source: API objects to a Snapshot and endpoints is pure; the watches and the source are the shell.
  'src/sources/k8s/api-object.ts',
  'src/sources/k8s/watched-kinds.ts',
  'src/sources/k8s/service-endpoints.ts',
  'src/sources/k8s/translate-cluster.ts',
  'src/sources/k8s/peer-secrets-of.ts',
  'src/sources/k8s/restart-policy.ts',
];

/** What a pure module may import besides pure modules, and why each has no I/O. */
export const PURE_MAY_IMPORT = {
  'node:crypto': 'sha256 (the election hash) and AES-GCM (memberlist encryption) are computations; randomness from it is an AMBIENT use',
  'node:zlib': 'crc32 only (memberlist checksums), a computation',
  'node:buffer': 'byte views and UTF-8 decoding, a computation',
  yaml: 'parses text already read (source positions for validation errors); it opens no files',
};

/** Ambient sources a pure module must receive instead of reaching for. */
const AMBIENT_CALLS = new Set([
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'clearInterval',
  'clearImmediate',
  'queueMicrotask',
  'fetch',
]);
const AMBIENT_OBJECTS = {
  Date: new Set(['now']),
  Math: new Set(['random']),
  performance: null, // any member: the monotonic clock
  process: null, // any member: environment, exit, stdout, hrtime
  console: null, // any member: logging goes through the injected logger
  crypto: new Set(['getRandomValues', 'randomUUID']),
};
/** Names imported from node:crypto that are randomness rather than computation. */
const RANDOM_CRYPTO_NAMES = new Set([
  'randomBytes',
  'randomUUID',
  'randomInt',
  'randomFillSync',
  'randomFill',
  'getRandomValues',
  'webcrypto',
]);

/** Folders that may open sockets and servers and arm timers themselves (rule 3), and why. */
export const IO_BOUNDARY_OWNERS = {
  'src/runtime': 'the runtime seam: its real implementations are where node:net, node:dgram, node:http and timers live',
  'src/cli': 'the process edge: commands and the lab machinery run once per invocation, outside any simulated world',
  'src/sources/k8s/api':
    "the Kubernetes API client, an adapter at the edge like netlink and AF_PACKET: HTTPS with the kubeconfig's TLS, tokens and proxies (client-node's applyToHTTPSOptions); simulated clusters talk to the fake API server through it",
};
/** Node modules only the IO_BOUNDARY_OWNERS may import (rule 3). */
const IO_MODULES = new Set(['node:net', 'node:dgram', 'node:http', 'node:https', 'node:http2', 'node:tls', 'node:timers']);
/** Global timer functions only the IO_BOUNDARY_OWNERS may call (rule 3). */
const IO_TIMER_CALLS = new Set(['setTimeout', 'setInterval', 'setImmediate']);

/** Deliberate ambient uses in pure modules: "file: name" -> why it is acceptable. */
export const AMBIENT_ALLOWED = {
  'src/gossip/codec/encryption.ts: randomBytes':
    'the default NonceSource for AES-GCM nonces; encrypt() takes the source as a parameter and tests pass a deterministic one',
  'src/runtime/virtual/next-turn.ts: setImmediate':
    'the virtual clock waits one event-loop turn between tasks so promise continuations settle; it never waits on the wall clock',
};

/**
 * Imports that close a cycle today and are being removed. Each entry names the edges (from a file or folder
 * prefix, to a file) that close the cycle; the cycle search ignores those edges only, so any other cycle, or a
 * new edge back into the same files from elsewhere, still fails. Delete an entry as soon as its edges are gone
 * or no longer close a cycle: the check says so when that happens.
 */
/** { from (a file or a folder ending in /), to, why }: none today; the check is strict. */
export const KNOWN_CYCLE_EDGES = [];

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts'];

/** Every source file under dir, as root-relative paths with forward slashes. */
function listSources(root, dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...listSources(root, full));
    else if (SOURCE_EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts')) out.push(toKey(root, full));
  }
  return out;
}

function toKey(root, full) {
  return relative(root, full).split(sep).join('/');
}

/** The file a relative specifier names, the way the Bundler resolution finds it, or undefined. */
function resolveRelative(root, fromKey, specifier) {
  const base = resolve(root, dirname(fromKey), specifier);
  const stripped = base.replace(/\.(m?js)$/, '');
  const candidates = [base, ...SOURCE_EXTENSIONS.map((e) => stripped + e), ...SOURCE_EXTENSIONS.map((e) => join(base, 'index' + e))];
  for (const c of candidates) {
    if (existsSync(c) && statSync(c).isFile()) return toKey(root, c);
  }
  return undefined;
}

function lineOf(sf, node) {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** One file's imports ({specifier, line, kind, names}) and ambient uses ({name, line}). */
function scanFile(root, key) {
  const text = readFileSync(join(root, key), 'utf8');
  const sf = ts.createSourceFile(key, text, ts.ScriptTarget.Latest, true, key.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const imports = [];
  const ambient = [];
  const timers = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause &&
          !clause.name &&
          clause.namedBindings &&
          ts.isNamedImports(clause.namedBindings) &&
          clause.namedBindings.elements.length > 0 &&
          clause.namedBindings.elements.every((e) => e.isTypeOnly));
      const names =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings)
          ? clause.namedBindings.elements.map((e) => (e.propertyName ?? e.name).text)
          : [];
      imports.push({ specifier: node.moduleSpecifier.text, line: lineOf(sf, node), kind: typeOnly ? 'type' : 'static', names });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      imports.push({ specifier: node.moduleSpecifier.text, line: lineOf(sf, node), kind: node.isTypeOnly ? 'type' : 'static', names: [] });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      imports.push({ specifier: node.moduleReference.expression.text, line: lineOf(sf, node), kind: 'static', names: [] });
    } else if (ts.isCallExpression(node)) {
      const arg = node.arguments[0];
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if ((isImport || isRequire) && arg && ts.isStringLiteralLike(arg)) {
        imports.push({ specifier: arg.text, line: lineOf(sf, node), kind: 'dynamic', names: [] });
      }
      if (ts.isIdentifier(node.expression) && AMBIENT_CALLS.has(node.expression.text)) {
        ambient.push({ name: node.expression.text, line: lineOf(sf, node) });
      }
      const callee = node.expression;
      const timer = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'globalThis'
          ? callee.name.text
          : undefined;
      if (timer !== undefined && IO_TIMER_CALLS.has(timer)) timers.push({ name: timer, line: lineOf(sf, node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      imports.push({ specifier: node.argument.literal.text, line: lineOf(sf, node), kind: 'type', names: [] });
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && Object.hasOwn(AMBIENT_OBJECTS, node.expression.text)) {
      const members = AMBIENT_OBJECTS[node.expression.text];
      if (members === null || members.has(node.name.text)) {
        ambient.push({ name: `${node.expression.text}.${node.name.text}`, line: lineOf(sf, node) });
      }
    }
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'Date' &&
      (node.arguments ?? []).length === 0
    ) {
      ambient.push({ name: 'new Date()', line: lineOf(sf, node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { imports, ambient, timers };
}

function ownsIo(key) {
  return Object.keys(IO_BOUNDARY_OWNERS).some((f) => key.startsWith(f + '/'));
}

/** Rule 3: sockets, servers and timers only through the runtime seam. */
function ioBoundaryProblems(key, imports, timers) {
  if (ownsIo(key)) return [];
  const problems = [];
  const owners = Object.keys(IO_BOUNDARY_OWNERS).join('/ and ') + '/';
  for (const imp of imports) {
    if (imp.specifier.startsWith('.')) continue;
    const pkg = packageOf(imp.specifier);
    const normalised = pkg.startsWith('node:') || !isBuiltin(pkg) ? pkg : `node:${pkg}`;
    if (!IO_MODULES.has(normalised)) continue;
    problems.push(
      `${key}:${imp.line}: imports '${imp.specifier}' outside ${owners}. Sockets, servers and timers come from the runtime ` +
        '(src/runtime/runtime.ts and its host-I/O factories): take them as a parameter.',
    );
  }
  for (const use of timers) {
    problems.push(
      `${key}:${use.line}: calls ${use.name} outside ${owners}. Timers come from the runtime's Scheduler ` +
        '(at/after/every), so the module runs on virtual time too: take one as a parameter.',
    );
  }
  return problems;
}

function isPure(key) {
  return PURE_FOLDERS.some((f) => key.startsWith(f + '/')) || PURE_FILES.includes(key);
}

/** The bare package name of a specifier ('node:fs/promises' -> 'node:fs', '@a/b/c' -> '@a/b'). */
function packageOf(specifier) {
  if (specifier.startsWith('node:')) return specifier.split('/')[0];
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Strongly connected components with more than one file, or a file importing itself (Tarjan). */
function findCycles(graph) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const indexOf = new Map();
  const low = new Map();
  const components = [];
  const strong = (v) => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const { to: w } of graph.get(v)) {
      if (!indexOf.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), indexOf.get(w)));
      }
    }
    if (low.get(v) === indexOf.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = graph.get(v).some((e) => e.to === v);
      if (component.length > 1 || selfLoop) components.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indexOf.has(v)) strong(v);
  return components;
}

/** One concrete cycle through a component, as the edges a reader can follow (breadth-first, so it is short). */
function exampleCycle(graph, component) {
  const members = new Set(component);
  const start = component[0];
  const previous = new Map();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length > 0) {
    const v = queue.shift();
    for (const edge of graph.get(v)) {
      if (!members.has(edge.to)) continue;
      if (edge.to === start) {
        const path = [edge];
        let at = v;
        while (at !== start) {
          const e = previous.get(at);
          path.unshift(e);
          at = e.from;
        }
        return path;
      }
      if (!seen.has(edge.to)) {
        seen.add(edge.to);
        previous.set(edge.to, edge);
        queue.push(edge.to);
      }
    }
  }
  return [];
}

/** Runs every check on ROOT; returns { problems, notes, stats } without printing or exiting. */
export function checkStructure(root) {
  const srcDir = join(root, 'src');
  if (!existsSync(srcDir)) return { problems: [`no src/ folder under ${root}`], notes: [], stats: { files: 0 } };
  const files = listSources(root, srcDir);
  const graph = new Map();
  const problems = [];
  const notes = [];
  let edges = 0;
  for (const key of files) {
    const { imports, ambient, timers } = scanFile(root, key);
    const out = [];
    const pure = isPure(key);
    problems.push(...ioBoundaryProblems(key, imports, timers));
    for (const imp of imports) {
      const where = `${key}:${imp.line}`;
      if (imp.specifier.startsWith('.')) {
        const target = resolveRelative(root, key, imp.specifier);
        if (target === undefined) {
          if (!/\.(json|node|cc|h)$/.test(imp.specifier)) notes.push(`${where}: cannot resolve '${imp.specifier}' (not checked)`);
          continue;
        }
        out.push({ from: key, to: target, line: imp.line, kind: imp.kind });
        if (pure && !isPure(target)) {
          problems.push(
            `${where}: pure module imports '${imp.specifier}' (${target}), which is not pure. ` +
              'Pass what it needs in as a parameter, or move the pure part into a pure module.',
          );
        }
      } else if (pure) {
        const pkg = packageOf(imp.specifier);
        const normalised = pkg.startsWith('node:') || !isBuiltin(pkg) ? pkg : `node:${pkg}`;
        if (!Object.hasOwn(PURE_MAY_IMPORT, normalised)) {
          problems.push(
            `${where}: pure module imports '${imp.specifier}'. A pure module may import only pure modules and ` +
              `${Object.keys(PURE_MAY_IMPORT).join(', ')}; I/O is injected (see PURE_MAY_IMPORT in scripts/check-structure.mjs).`,
          );
        } else if (normalised === 'node:crypto') {
          for (const name of imp.names.filter((n) => RANDOM_CRYPTO_NAMES.has(n))) ambient.push({ name, line: imp.line });
        }
      }
    }
    if (pure) {
      for (const use of ambient) {
        if (Object.hasOwn(AMBIENT_ALLOWED, `${key}: ${use.name}`)) continue;
        problems.push(
          `${key}:${use.line}: pure module uses ${use.name}. Clock, timers, randomness, process and console ` +
            'are injected into pure modules (time as a `now` argument, randomness as a source).',
        );
      }
    }
    edges += out.length;
    graph.set(key, out);
  }
  const isKnown = (edge) => KNOWN_CYCLE_EDGES.findIndex((k) => edge.from.startsWith(k.from) && edge.to === k.to);
  const withoutKnown = new Map([...graph].map(([v, out]) => [v, out.filter((e) => isKnown(e) < 0)]));
  for (const component of findCycles(withoutKnown)) {
    const path = exampleCycle(withoutKnown, component);
    const steps = path.map((e) => `  ${e.from}:${e.line} -> ${e.to}${e.kind === 'static' ? '' : ` (${e.kind} import)`}`);
    problems.push(
      `import cycle among ${component.length} file(s): ${component.join(', ')}\n  for example:\n${steps.join('\n')}\n` +
        '  Break it by moving what both sides need into a module of its own that imports neither.',
    );
  }
  const closing = new Set();
  for (const component of findCycles(graph)) {
    const members = new Set(component);
    for (const v of component) {
      for (const e of graph.get(v)) if (members.has(e.to) && isKnown(e) >= 0) closing.add(isKnown(e));
    }
  }
  KNOWN_CYCLE_EDGES.forEach((k, i) => {
    if (closing.has(i)) notes.push(`allowed known cycle ${k.from} -> ${k.to} (${k.why})`);
    else notes.push(`KNOWN_CYCLE_EDGES entry ${k.from} -> ${k.to} no longer closes a cycle: delete it so the check is strict`);
  });
  return { problems, notes, stats: { files: files.length, edges, pure: files.filter(isPure).length } };
}

const BUILTINS = new Set([
  'fs',
  'net',
  'dgram',
  'child_process',
  'worker_threads',
  'http',
  'https',
  'http2',
  'tls',
  'os',
  'timers',
  'timers/promises',
  'perf_hooks',
  'events',
  'process',
  'readline',
  'cluster',
  'dns',
  'path',
  'crypto',
  'zlib',
  'buffer',
  'util',
  'stream',
  'url',
  'assert',
  'vm',
  'v8',
  'module',
  'inspector',
  'tty',
  'async_hooks',
  'diagnostics_channel',
]);
function isBuiltin(name) {
  return BUILTINS.has(name);
}

function printRules() {
  console.log('Pure folders (every file):');
  for (const folder of PURE_FOLDERS) console.log(`  ${folder}/`);
  console.log('Pure files in folders that also hold their shell:');
  for (const file of PURE_FILES) console.log(`  ${file}`);
  console.log('A pure module may also import:');
  for (const [name, why] of Object.entries(PURE_MAY_IMPORT)) console.log(`  ${name}: ${why}`);
  console.log('Ambient uses allowed in pure modules:');
  for (const [use, why] of Object.entries(AMBIENT_ALLOWED)) console.log(`  ${use}: ${why}`);
  console.log('Folders that may open sockets and servers and arm timers themselves:');
  for (const [folder, why] of Object.entries(IO_BOUNDARY_OWNERS)) console.log(`  ${folder}/: ${why}`);
  console.log('Known cycles (edges the cycle search ignores until they are gone):');
  for (const k of KNOWN_CYCLE_EDGES) console.log(`  ${k.from} -> ${k.to}: ${k.why}`);
}

function main() {
  if (process.argv[2] === '--rules') {
    printRules();
    return;
  }
  const started = performance.now();
  const root = resolve(process.argv[2] ?? '.');
  const { problems, notes, stats } = checkStructure(root);
  for (const note of notes) console.log(`note: ${note}`);
  const took = Math.round(performance.now() - started);
  if (problems.length > 0) {
    for (const problem of problems) console.error(`error: ${problem}`);
    console.error(`structure check failed: ${problems.length} problem(s) in ${stats.files} files (${took} ms)`);
    process.exitCode = 1;
    return;
  }
  console.log(
    `structure ok: ${stats.files} files, ${stats.edges} imports, ${stats.pure} pure, no cycles, impure imports or I/O outside the runtime (${took} ms)`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
