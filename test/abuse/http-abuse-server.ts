/**
 * A child-process server for the HTTP abuse tests: the demo server over Streamable HTTP via
 * `serveNode`, configured from one JSON argument
 * (`{ "responseMode": "json" | "sse", "serve": ServeNodeOptions, "maxTotalQueuedBytes": n, "traceAnswers": bool }`). Prints
 * `LISTENING <url>` first on stdout, then one `ONERROR <code> <message>` line per error the
 * handler or the adapter reports (and, with `traceAnswers`, one `ANSWERED <method>` line per request answered). Started with `--expose-gc`, it collects garbage every
 * 200 ms, so that its RSS follows the memory it actually holds rather than the collector's
 * schedule. Not part of the package's API.
 */
import { createDemoServer } from '../../src/demo/server.js';
import { OutboundBudget, type ServeNodeOptions, serveNode } from '../../src/http/node.js';
import { createStreamableHttpHandler } from '../../src/http/server/handler.js';

interface ChildConfig {
  responseMode?: 'json' | 'sse';
  serve?: ServeNodeOptions;
  /** Gives the listener its own {@link OutboundBudget} of this size. */
  maxTotalQueuedBytes?: number;
  /** How often garbage is collected, in ms. Default 200. */
  gcIntervalMs?: number;
  /** Prints `ANSWERED <method>` once each request's answer was handed to the transport (a turn of the loop after its handler returned). */
  traceAnswers?: boolean;
}

const config = JSON.parse(process.argv[2] ?? '{}') as ChildConfig;
const onError = (error: Error): void => {
  const code = (error as { code?: unknown }).code;
  process.stdout.write(`ONERROR ${typeof code === 'string' ? code : 'none'} ${error.message.replace(/\s+/g, ' ')}\n`);
};
const server = createDemoServer({ onError });
if (config.traceAnswers === true) {
  server.use({
    async intercept(call, next) {
      try {
        return await next();
      } finally {
        setImmediate(() => process.stdout.write(`ANSWERED ${call.method}\n`));
      }
    },
  });
}
const handler = createStreamableHttpHandler({ server, responseMode: config.responseMode ?? 'sse', onError });
const budget = config.maxTotalQueuedBytes === undefined ? undefined : new OutboundBudget(config.maxTotalQueuedBytes);
const running = await serveNode(handler, { ...config.serve, ...(budget === undefined ? {} : { budget }) });
const gc = (globalThis as { gc?: () => void }).gc;
if (gc !== undefined) setInterval(gc, config.gcIntervalMs ?? 200).unref();
process.stdout.write(`LISTENING ${running.url}\n`);
process.once('SIGTERM', () => {
  void running.close().then(() => process.exit(0));
});
