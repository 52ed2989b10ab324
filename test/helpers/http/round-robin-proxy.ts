/**
 * A round-robin HTTP proxy for the multi-instance tests: every request (not connection) goes
 * to the next upstream in turn, the response streamed back as it comes (SSE included), and
 * each exchange recorded (method, upstream, status, whether the response has ended). Not
 * part of the package.
 */
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One proxied exchange. */
export interface ProxiedExchange {
  readonly method: string;
  readonly upstream: number;
  status: number | undefined;
  ended: boolean;
}

/** A running proxy. */
export interface RoundRobinProxy {
  /** The proxy's MCP endpoint URL. */
  readonly url: string;
  readonly exchanges: ProxiedExchange[];
  /** Takes upstream `index` out of the rotation (as a balancer's health check would); requests already proxied go on. */
  down(index: number): void;
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) in front of `upstreams` (ports on 127.0.0.1); `path` is the endpoint path. */
export async function roundRobinProxy(upstreams: readonly number[], path = '/mcp'): Promise<RoundRobinProxy> {
  let next = 0;
  const exchanges: ProxiedExchange[] = [];
  const downed = new Set<number>();
  const server: Server = createServer((req, res) => {
    let upstream = next++ % upstreams.length;
    for (let i = 0; i < upstreams.length && downed.has(upstream); i++) upstream = next++ % upstreams.length;
    const exchange: ProxiedExchange = { method: req.method ?? '', upstream, status: undefined, ended: false };
    exchanges.push(exchange);
    const headers: IncomingHttpHeaders = { ...req.headers };
    const out = request({ host: '127.0.0.1', port: upstreams[upstream], method: req.method, path: req.url, headers }, (up) => {
      exchange.status = up.statusCode;
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
      up.on('end', () => (exchange.ended = true));
      up.on('close', () => {
        exchange.ended = true;
        // the upstream went away mid-response (killed): the client's response breaks too, as behind a real balancer
        if (!res.writableEnded) res.destroy();
      });
    });
    out.on('error', () => {
      exchange.ended = true;
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => out.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    exchanges,
    down: (index) => void downed.add(index),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
