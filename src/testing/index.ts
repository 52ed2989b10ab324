/**
 * `mcpkit/testing`: helpers for testing MCP servers and clients built with mcpkit (or any
 * other SDK): a client and server connected in memory in one call, and a transport wrapper
 * that records every message and checks it against the official JSON Schema of its protocol
 * revision. Node.js only.
 */

export { type FormatOptions, RecordingTransport, type RecordOptions, recordTransport, type TranscriptEntry } from '../testing/recording-transport.js';
export { validateWireMessage, type WireContext, type WireSide } from '../testing/wire-schema.js';
export { connectInMemory, type InMemoryPair, type InMemoryPairOptions } from './in-memory.js';
