/** An in-process upstream for the compose tests. */
import type { McpServer } from '../../src/server/server.js';
import { InMemoryTransport } from '../../src/transport/memory.js';

/** A connect function (what `McpProxy`'s `upstream` takes) that serves each new connection from `server` in memory. */
export function inMemory(server: McpServer): () => InMemoryTransport {
  return () => {
    const [mine, theirs] = InMemoryTransport.createPair();
    void server.connect(theirs);
    return mine;
  };
}
