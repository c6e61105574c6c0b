#!/usr/bin/env node
// The NAS Mirror command line. TypeScript runs through tsx: no build step.
import { register } from 'tsx/esm/api';

register();
await import('../main/cli/main.ts');
