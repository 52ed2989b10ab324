// What `require('mcpkit')` (or any mcpkit/... entry point) loads: mcpkit is an ES module
// package, so a CommonJS require gets this clear error instead of Node's
// ERR_PACKAGE_PATH_NOT_EXPORTED. See docs/cli-serve.md ("ES modules only").
'use strict';
const error = new Error(
  'mcpkit is an ES module package: load it with import, not require(). ' +
    "In an ES module: import { McpServer } from 'mcpkit/server'. From CommonJS: const { McpServer } = await import('mcpkit/server'). " +
    'A TypeScript or .js file is CommonJS when its package.json has no "type": "module": add "type": "module" to it, or name the file .mts / .mjs.',
);
error.code = 'ERR_MCPKIT_ESM_ONLY';
throw error;
