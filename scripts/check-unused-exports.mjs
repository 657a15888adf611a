#!/usr/bin/env node
/**
 * The unused-exports check: every `export` in src/ must be imported by some other file (src, test, bench or
 * scripts), or it is dead API that rots unseen: never called, never tested through its callers, yet kept in step
 * by every refactor. `npm test` runs it after the structure check; alone: `npm run check:exports`.
 *
 * It builds one TypeScript Program over tsconfig.json (binding and alias resolution only, no full type check) and:
 *   1. collects every export declared in a src/ file (re-exports through index.ts barrels are not declarations:
 *      they lead to the file that declares the symbol, which is where the finding points);
 *   2. marks an export used when a file other than its own reaches it: `import { x }` (through any chain of
 *      `export { x } from` / `export *` barrels), `import * as ns` then `ns.x`, `import('./m').X` in a type, or a
 *      dynamic `import('./m')` (all of m's exports: what is taken from the promise is not followed);
 *   3. marks every export of an entry point used: src/cli/main.ts and whatever else scripts/build*.mjs hand to
 *      esbuild by path (ENTRY_SOURCES below finds those paths in the build scripts themselves);
 *   4. marks a type used when a used export's signature names it (declaration emit would need it exported, and a
 *      caller may need to name it), repeating until nothing new is marked;
 *   5. prints each export that is left as `file:line: name`, with a count, and exits 1.
 * The .mjs scripts are not in the Program (no allowJs); only the build scripts' entry paths are read from them.
 *
 * The fix for a finding: drop the `export` keyword; if tsc (noUnusedLocals) then says the symbol is unused even
 * in its own file, delete the dead code. About 6 s of CPU on this tree, most of it parsing; 8 to 14 s of wall
 * time on a busy 2-core machine. Why not knip: it is not installed (a new dependency tree for one check), and
 * the rules here (barrels, entry points from the build scripts, types a used signature names) fit in this file.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Exports left alone for now, as `path: name`. Keep it short: an entry here is dead API nobody has decided about
 * yet. An entry that is no longer reported (imported now, or deleted) fails the check, so the list cannot go stale.
 */
const ALLOWED = new Set([]);

/** The build scripts whose quoted `src/...` paths are esbuild entry points (build.mjs, build-sea.mjs, bundle-options.mjs). */
const ENTRY_SOURCES = readdirSync(join(ROOT, 'scripts')).filter((f) => /^(build.*|bundle-options)\.mjs$/.test(f));

function entryPoints() {
  const entries = new Set();
  for (const file of ENTRY_SOURCES) {
    for (const m of readFileSync(join(ROOT, 'scripts', file), 'utf8').matchAll(/['"`](src\/[\w./-]+\.tsx?)['"`]/g)) entries.add(m[1]);
  }
  return entries;
}

/**
 * Only the repository's own files matter (packages cannot import mlb), so the Program leaves out the default
 * libraries, @types and every package: bare specifiers stay unresolved. That halves the time the check takes;
 * nothing here needs a type that lives in node_modules, only where each imported name was declared.
 */
function createProgram() {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(d) },
  );
  if (config.errors.length > 0) fail(config.errors[0]);
  const options = { ...config.options, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  host.resolveModuleNameLiterals = (literals, containingFile, redirect, opts) =>
    literals.map((literal) =>
      literal.text.startsWith('.')
        ? ts.resolveModuleName(literal.text, containingFile, opts, host, undefined, redirect)
        : { resolvedModule: undefined },
    );
  return ts.createProgram({ rootNames: config.fileNames, options, host });
}

function fail(diagnostic) {
  console.error(`check-unused-exports: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
  process.exit(2);
}

const rel = (fileName) => relative(ROOT, fileName).split(sep).join('/');
const isOwnSource = (sf) => !sf.isDeclarationFile && !rel(sf.fileName).startsWith('..') && !sf.fileName.includes('/node_modules/');
const isInSrc = (sf) => isOwnSource(sf) && rel(sf.fileName).startsWith('src/');

function main() {
  const started = performance.now();
  const program = createProgram();
  const checker = program.getTypeChecker();
  const resolveAlias = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const exportsOf = (moduleSymbol) => checker.getExportsOfModule(moduleSymbol).map(resolveAlias);

  // 1. Every export declared in src/: the original symbol -> the file and node that declare it.
  /** @type {Map<ts.Symbol, { file: ts.SourceFile, node: ts.Node }>} */
  const declared = new Map();
  const sources = program.getSourceFiles().filter(isOwnSource);
  for (const sf of sources.filter(isInSrc)) {
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const original = resolveAlias(exported);
      const declaration = original.declarations?.find((d) => d.getSourceFile() === sf);
      if (declaration) declared.set(original, { file: sf, node: ts.getNameOfDeclaration(declaration) ?? declaration });
    }
  }

  // 2 and 3. Uses from other files, and the entry points' exports.
  const used = new Set();
  const markUsed = (symbol, fromFile) => {
    const original = resolveAlias(symbol);
    if (declared.has(original) && declared.get(original).file !== fromFile) used.add(original);
  };
  const markModule = (specifier, fromFile) => {
    const moduleSymbol = checker.getSymbolAtLocation(specifier);
    if (moduleSymbol) for (const s of exportsOf(moduleSymbol)) markUsed(s, fromFile);
  };
  const entries = entryPoints();
  for (const sf of sources) {
    if (entries.has(rel(sf.fileName))) markModule(sf, undefined);
    // Local names of `import * as ns`: only property accesses on these are looked up (resolving every `a.b` is slow).
    const namespaces = new Set();
    const visit = (node) => {
      if (ts.isNamespaceImport(node)) namespaces.add(node.name.text);
      if (ts.isImportSpecifier(node) || ts.isImportClause(node)) {
        // `import { x as y }` / `import d`: the local binding is an alias; the checker follows it through barrels.
        const name = node.name;
        if (name) markUsed(checker.getSymbolAtLocation(name), sf);
      } else if (ts.isPropertyAccessExpression(node) || ts.isQualifiedName(node)) {
        // `ns.x` after `import * as ns`: only namespace imports resolve to a module's export here.
        const left = ts.isPropertyAccessExpression(node) ? node.expression : node.left;
        const leftSymbol = ts.isIdentifier(left) && namespaces.has(left.text) ? checker.getSymbolAtLocation(left) : undefined;
        if (leftSymbol?.declarations?.some(ts.isNamespaceImport)) {
          const member = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(node) ? node.name : node.right);
          if (member) markUsed(member, sf);
        }
      } else if (ts.isImportTypeNode(node)) {
        // `import('./m').X` in a type; `typeof import('./m')` without a qualifier takes the whole module.
        const argument = ts.isLiteralTypeNode(node.argument) ? node.argument.literal : undefined;
        if (node.qualifier) {
          let first = node.qualifier;
          while (ts.isQualifiedName(first)) first = first.left;
          const symbol = checker.getSymbolAtLocation(first);
          if (symbol) markUsed(symbol, sf);
        } else if (argument) markModule(argument, sf);
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        markModule(node.arguments[0], sf);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }

  // 4. Types named in the signature of a used export (bodies and initializers are the implementation, not the API).
  const isImplementation = (node, parent) =>
    (ts.isBlock(node) && ts.isFunctionLike(parent)) ||
    ((ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isParameter(parent)) &&
      parent.initializer === node &&
      !ts.isArrowFunction(node) &&
      !ts.isFunctionExpression(node)) ||
    (ts.isClassElement(node) &&
      (ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private || (node.name && ts.isPrivateIdentifier(node.name))));
  const pending = [...used];
  while (pending.length > 0) {
    const symbol = pending.pop();
    for (const declaration of symbol.declarations ?? []) {
      const visit = (node, parent) => {
        if (parent && isImplementation(node, parent)) return;
        if (ts.isIdentifier(node)) {
          const target = checker.getSymbolAtLocation(node);
          const original = target && resolveAlias(target);
          if (original && declared.has(original) && !used.has(original)) {
            used.add(original);
            pending.push(original);
          }
        }
        ts.forEachChild(node, (child) => visit(child, node));
      };
      visit(declaration, undefined);
    }
  }

  // 5. Report: the unused exports, and the allowlist entries that no longer name one.
  const unused = [];
  const allowedSeen = new Set();
  for (const [symbol, { file, node }] of declared) {
    if (used.has(symbol)) continue;
    const path = rel(file.fileName);
    const key = `${path}: ${symbol.name}`;
    if (ALLOWED.has(key)) {
      allowedSeen.add(key);
      continue;
    }
    const line = file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
    unused.push(`${path}:${line}: ${symbol.name}`);
  }
  unused.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const stale = [...ALLOWED].filter((key) => !allowedSeen.has(key));
  for (const line of unused) console.log(line);
  for (const key of stale)
    console.log(`scripts/check-unused-exports.mjs: ALLOWED lists '${key}', which is no longer an unused export: delete the entry`);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (unused.length > 0 || stale.length > 0) {
    console.log(
      `\n${unused.length} unused export(s) in src/, ${stale.length} stale allowlist entr(ies) (${declared.size} exports, ${seconds} s).`,
    );
    if (unused.length > 0) console.log('Drop the `export`; if tsc then says the symbol is unused in its own file too, delete it.');
    process.exit(1);
  }
  console.log(`unused exports ok: ${declared.size} exports of src/, each imported elsewhere or allowed (${ALLOWED.size}) (${seconds} s)`);
}

main();
