/**
 * The sessionless mode of the MCP endpoint (the handler's `sessionless` option; 2025 era):
 * every POST is served by a throwaway transport and server connection, and no `Mcp-Session-Id`
 * is issued. Not to be confused with the stateless era (2026-07-28, stateless/post.ts), a
 * protocol revision without sessions that the handler serves beside either 2025 mode.
 *
 * Contract: the throwaway session is put straight into the initialized state at the
 * revision of the POST's `MCP-Protocol-Version` header (2025-03-26 when absent; an
 * `initialize` POST is answered by a real handshake, as JSON, and creates nothing that
 * lasts). There is no GET stream and no DELETE (405 with `Allow: POST`), no resumption, and
 * server → client requests cannot work (their answers would reach another throwaway
 * session). The legacy HTTP+SSE endpoints are not served in this mode. Runtime-neutral.
 */
import { V2025_03_26 } from '../../protocol/versions.js';
import type { McpServer } from '../../server/server.js';
import type { EndpointMode } from './endpoint-mode.js';
import { batchRefusal, type PostBody, versionRefusal } from './post-checks.js';
import { errorReply, internalErrorReply, jsonReply, TRANSPORT_ERROR } from './replies.js';
import { answerAsJson, connectTransport, deliverPost } from './session-dispatch.js';
import { StreamableSessionTransport, type TransportHost } from './session-transport.js';
import type { HttpReply, HttpRequest, HttpRequestInfo } from './types.js';

/** The sessionless mode; see the module note. */
export class SessionlessPost implements EndpointMode {
  readonly allow = 'POST';
  readonly #server: McpServer;
  readonly #host: TransportHost;
  readonly #mode: 'sse' | 'json';

  /** `mode` is the handler's `responseMode`. */
  constructor(server: McpServer, host: TransportHost, mode: 'sse' | 'json') {
    this.#server = server;
    this.#host = host;
    this.#mode = mode;
  }

  /** This mode has no sessions: any `Mcp-Session-Id` is ignored. */
  sessionOf(): undefined {
    return undefined;
  }

  async post(req: HttpRequest, info: HttpRequestInfo | undefined, body: PostBody, versionHeader: string | null): Promise<HttpReply> {
    const revision = versionHeader ?? V2025_03_26;
    const replyId = body.replyId;
    if (!body.initialize) {
      const refused = versionRefusal(this.#server.revisions, versionHeader, replyId) ?? (body.batch ? batchRefusal(revision) : undefined);
      if (refused !== undefined) return refused;
    }
    const transport = new StreamableSessionTransport(this.#host, undefined);
    const session = await connectTransport(this.#server, transport, (error) => this.#host.reportError(error));
    if (session === undefined) return internalErrorReply();
    if (body.initialize) {
      const outcome = await answerAsJson(transport, req, info, body.value, body.ids[0]!);
      return outcome.body === undefined ? internalErrorReply() : jsonReply(200, outcome.body);
    }
    try {
      session.initializeSessionless(revision);
    } catch (error) {
      void transport.close();
      return errorReply(400, TRANSPORT_ERROR, `Bad Request: ${(error as Error).message}`, undefined, replyId);
    }
    return deliverPost(transport, req, info, body, this.#mode);
  }

  get(): HttpReply {
    return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed: this server offers no SSE stream at this endpoint', { allow: this.allow });
  }

  delete(): HttpReply {
    return errorReply(405, TRANSPORT_ERROR, 'Method Not Allowed: this server has no sessions', { allow: this.allow });
  }
}
