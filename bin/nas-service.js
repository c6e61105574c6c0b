#!/usr/bin/env node
// The reference service's command line. TypeScript runs through tsx: no build step.
import { register } from 'tsx/esm/api';

register();
await import('../server/cli.ts');
