/**
 * Lint: only rules that catch real bugs, none about layout (layout is Prettier's: .prettierrc.json, `npm run format`,
 * checked by `npm test`). `npm run lint`; `npm test` runs it before vitest. Type-aware, because the rules that matter most here
 * (a promise nobody awaits or catches: an unhandled rejection kills the daemon) need the types.
 *
 * A disable needs a comment on the same line saying why.
 *
 * `npm run lint` caches results by file content (node_modules/.cache/eslint): a warm run takes seconds, a cold one
 * about a minute of CPU (the type information for src, test and bench). The cache does not notice that a change in
 * one file's types alters another unchanged file's verdict; `npx eslint .` (no cache) checks everything afresh.
 */
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'build/**', 'node_modules/**', '.tmp/**', 'scripts/*.d.mts'],
  },
  {
    files: ['**/*.ts', '**/*.mts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      // A promise dropped on the floor: its rejection is unhandled (the process exits) and its ordering unknown.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async function where a void callback is expected (event handlers, forEach): its rejection is unhandled.
      '@typescript-eslint/no-misused-promises': 'error',
      // await on something that is not a promise: usually a missing call or a wrong type.
      '@typescript-eslint/await-thenable': 'error',
      // Dead bindings hide bugs (a value computed and never used); `_` marks what a signature requires.
      '@typescript-eslint/no-unused-vars': ['error', {
        args: 'after-used',
        argsIgnorePattern: '^_',
        varsIgnorePattern: '^_',
        caughtErrors: 'none',
        ignoreRestSiblings: true,
      }],
      // == coerces ('' == 0); null checks included, so `x == null` must say `=== null || === undefined`.
      eqeqeq: ['error', 'always'],
      // A case that runs into the next without saying so (tsconfig's noFallthroughCasesInSwitch covers .ts; this also
      // covers scripts).
      'no-fallthrough': 'error',
      // x === x, a return in finally swallowing an exception, an async promise executor (its throw is lost).
      'no-self-compare': 'error',
      'no-unsafe-finally': 'error',
      'no-async-promise-executor': 'error',
      // '${x}' in a plain string is a template that was meant.
      'no-template-curly-in-string': 'error',
      'no-dupe-else-if': 'error',
      'no-cond-assign': ['error', 'except-parens'],
    },
  },
  {
    // The build scripts are plain JavaScript: the same bug rules, without type information.
    files: ['**/*.mjs', '**/*.js'],
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: {
        process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', performance: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
      },
    },
    rules: {
      'no-unused-vars': ['error', { args: 'after-used', argsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-undef': 'error',
      eqeqeq: ['error', 'always'],
      'no-fallthrough': 'error',
      'no-self-compare': 'error',
      'no-unsafe-finally': 'error',
      'no-async-promise-executor': 'error',
      'no-dupe-else-if': 'error',
      'no-cond-assign': ['error', 'except-parens'],
    },
  },
);
