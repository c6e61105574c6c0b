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
