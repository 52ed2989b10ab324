/** @deprecated module: `ServerSession` was renamed `ServerConnection` (connection.ts). */
export { ServerConnection, ServerSession } from './connection.js';
