/** The context of a server request: defined beside the connection it names (connection.ts). */
export { ServerRequestContext } from './connection.js';
