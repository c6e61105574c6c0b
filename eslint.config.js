// Lint rules. The layer rules proper live in .dependency-cruiser.cjs (also run by `npm test`);
// the import bans here give an editor-time signal for the same rules.
import tseslint from 'typescript-eslint';

const noNode = {
  group: ['node:*', 'fs', 'path', 'os', 'child_process', 'http', 'crypto'],
  message: 'app/ and renderer/ import no Node modules.',
};
const noElectron = { group: ['electron'], message: 'only main/shell/ imports electron.' };

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'release/**', 'bench/results/**', 'test-artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-throw-literal': 'error',
    },
  },
  // Rules that need the types (issue 22): a promise nobody awaits or handles, a promise where a
  // void callback is expected, a switch that forgets a case of its union.
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { project: ['./tsconfig.json', './tsconfig.renderer.json'], tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  // Issue 22: functions a reader can hold (80 lines), lines a reader can see (140 characters).
  {
    files: ['main/**/*.ts', 'app/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, IIFEs: true }],
      'max-len': ['error', { code: 140, ignoreUrls: true }],
    },
  },
  // No catch swallows an error in silence: a rejection the app may ignore says why (app/util/ignore.ts).
  {
    files: ['main/**/*.ts', 'app/**/*.ts', 'renderer/**/*.ts', 'server/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-empty': ['error', { allowEmptyCatch: false }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='catch'] > ArrowFunctionExpression[body.type='Identifier'][body.name='undefined']",
          message: "say why the failure may be ignored: .catch(ignore('why')) (app/util/ignore.ts)",
        },
        {
          selector:
            "CallExpression[callee.property.name='catch'] > ArrowFunctionExpression[body.type='BlockStatement'][body.body.length=0]",
          message: "say why the failure may be ignored: .catch(ignore('why')) (app/util/ignore.ts)",
        },
      ],
    },
  },
  {
    files: ['app/**/*.ts'],
    ignores: ['app/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noNode, noElectron] }] },
  },
  {
    files: ['renderer/**/*.ts'],
    ignores: ['renderer/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noNode, noElectron] }] },
  },
  {
    files: ['main/**/*.ts', 'server/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    ignores: ['main/shell/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noElectron] }] },
  },
);
