/**
 * `mcpkit/stdio`: the stdio transport (spec: Transports → stdio). A server reads
 * newline-delimited JSON-RPC from its stdin and writes to its stdout; a client launches the
 * server as a child process and speaks to it over its stdin/stdout.
 */

export { DEFAULT_MAX_LINE_BYTES, OversizedLineError } from '../framing/ndjson.js';
export {
  defaultEnvironment,
  ProcessExitedError,
  type ProcessExitStatus,
  StdioClientTransport,
  type StdioClientTransportOptions,
} from './client-transport.js';
export { DEFAULT_MAX_QUEUED_OUTPUT_CHARS } from './line-writer.js';
export { StdioServerTransport, type StdioServerTransportOptions } from './server-transport.js';
