/**
 * node:http loaded with `require`. An ESM `import … from 'node:http'` builds the module's ESM
 * facade, which reads every export, the lazy `WebSocket`, `CloseEvent` and `MessageEvent` getters
 * included, and those load Node's bundled fetch/WebSocket implementation: about 13 MiB of RSS that
 * a gateway using neither would carry for good. (`import type` from 'node:http' costs nothing.)
 */
import { createRequire } from 'node:module';
import type * as Http from 'node:http';

const require = createRequire(import.meta.url);

export const { createServer } = require('node:http') as typeof Http;
