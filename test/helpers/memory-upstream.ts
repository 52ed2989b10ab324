/** An in-process upstream for the compose tests. */
import type { McpServer } from '../../src/server/server.js';
import { InMemoryTransport } from '../../src/transport/memory.js';

/** A transport factory (what `McpProxy`'s `upstream` takes) connecting to `server` in memory: a new pair at every (re)connection. */
export function inMemory(server: McpServer): () => InMemoryTransport {
  return () => {
    const [mine, theirs] = InMemoryTransport.createPair();
    void server.connect(theirs);
    return mine;
  };
}
