#!/usr/bin/env node
// Thin launcher so `npx modelgate …` works: the CLI itself is TypeScript run by Node 24's type stripping.
import '../src/cli/main.ts';
