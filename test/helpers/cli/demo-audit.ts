/**
 * Test fixture: the demo server over Streamable HTTP on 127.0.0.1 (a free port, printed as
 * `LISTENING <url>`), appending one line `<method> <outcome>` per request it handled to the
 * file named by `AUDIT_LOG` (its audit middleware), so a test can see which requests a CLI
 * run sent (for example `tasks/cancel` after Ctrl-C). With `CANCEL_LOG`, each `tools/call`
 * appends `call <id>` when it arrives and, when its handler's signal aborts, `aborted <id>
 * <reason>`: the reason is the `reason` of the client's `notifications/cancelled` for that
 * id (a closed session or stream aborts with a reason of the server's own). Not part of the
 * package.
 */
import { appendFileSync } from 'node:fs';
import { createDemoServer } from '../../../src/demo/server.js';
import { serveNode } from '../../../src/http/node.js';
import { createStreamableHttpHandler } from '../../../src/http/server/handler.js';

const log = process.env.AUDIT_LOG;
const cancelLog = process.env.CANCEL_LOG;
const server = createDemoServer({ onAudit: (e) => log && e.direction === 'incoming' && appendFileSync(log, `${e.method} ${e.outcome}\n`) });
if (cancelLog) {
  server.use({
    intercept(call, next) {
      if (call.kind === 'request' && call.method === 'tools/call') {
        const id = JSON.stringify(call.id);
        appendFileSync(cancelLog, `call ${id}\n`);
        call.signal?.addEventListener('abort', () => {
          const reason: unknown = call.signal!.reason;
          appendFileSync(cancelLog, `aborted ${id} ${reason instanceof Error ? reason.message : String(reason)}\n`);
        });
      }
      return next();
    },
  });
}
const running = await serveNode(createStreamableHttpHandler({ server }), { port: 0, host: '127.0.0.1' });
process.stdout.write(`LISTENING ${running.url}\n`);
process.on('SIGTERM', () => void running.close().then(() => process.exit(0)));
