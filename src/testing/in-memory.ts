/**
 * A client and a server connected in memory, in one call, for users' own tests.
 *
 * Both ends are wrapped in a {@link RecordingTransport}: every message is recorded and, when
 * `checkWire` is on (the default), checked against the official JSON Schema of the revision
 * in force (the schemas ship in the package, `spec/schema/<revision>/schema.json`). Node.js
 * only (the schemas are read from disk).
 */
import { Client, type ClientOptions } from '../client/client.js';
import type { ServerConnection } from '../server/connection.js';
import type { McpServer } from '../server/server.js';
import { type RecordingTransport, recordTransport } from '../testing/recording-transport.js';
import { InMemoryTransport } from '../transport/memory.js';
import type { Implementation } from '../types.js';

/** Options of {@link connectInMemory}. */
export interface InMemoryPairOptions {
  /** The client's identity. Default `{ name: 'mcpkit-test-client', version: '0.0.0' }`. */
  clientInfo?: Implementation;
  /** The client's options: capabilities, handlers for sampling, elicitation and roots, revisions. */
  client?: ClientOptions;
  /**
   * Check every message both ends send against the official schema; {@link InMemoryPair.close}
   * then throws when one did not conform. Default true.
   */
  checkWire?: boolean;
  /** Called with the client before it connects: attach helpers that must see the handshake (e.g. `new TaskClient(client)`). */
  onClient?: (client: Client) => void;
}

/** What {@link connectInMemory} resolves with. */
export interface InMemoryPair {
  /** The connected client (`initialize` done, or `server/discover` for 2026-07-28 clients). */
  readonly client: Client;
  /** The server connection serving that client. */
  readonly session: ServerConnection;
  /** The client end's recorder: `formatTranscript()` shows the conversation, `violations()` what broke the schema. */
  readonly clientWire: RecordingTransport;
  /** The server end's recorder. */
  readonly serverWire: RecordingTransport;
  /**
   * Closes the client (and with it the session). With `checkWire`, then throws an
   * `AssertionError` listing every message either end sent that broke the official schema.
   */
  close(): Promise<void>;
}

/**
 * Connects a new {@link Client} to `server` over an in-memory transport pair and resolves once
 * the client is connected. Rejects with what `Client.connect` rejects with. The server can be
 * connected to any number of pairs.
 */
export async function connectInMemory(server: McpServer, options: InMemoryPairOptions = {}): Promise<InMemoryPair> {
  const [clientEnd, serverEnd] = InMemoryTransport.createPair();
  const client = new Client(options.clientInfo ?? { name: 'mcpkit-test-client', version: '0.0.0' }, options.client);
  let session: ServerConnection | undefined;
  const serverWire = recordTransport(serverEnd, { side: 'server', revision: () => session?.protocolVersion });
  const clientWire = recordTransport(clientEnd, { side: 'client', revision: () => client.protocolVersion });
  options.onClient?.(client);
  session = await server.connect(serverWire);
  await client.connect(clientWire);
  const checkWire = options.checkWire ?? true;
  return {
    client,
    session,
    clientWire,
    serverWire,
    async close() {
      await client.close();
      if (checkWire) {
        clientWire.assertNoViolations();
        serverWire.assertNoViolations();
      }
    },
  };
}
