/**
 * `mcpkit ping TARGET`: connects, sends `ping`, and prints the round-trip time (with
 * `--json`: `{"ok":true,"protocolVersion":...,"server":{...},"roundTripMs":N}`).
 */

import { Method } from '../../protocol/methods.js';
import { isStatelessRevision } from '../../protocol/stateless/wire.js';
import { printJson, runClientCommand } from '../connection.js';
import { ExitCode } from '../exit-codes.js';
import { clean } from '../terminal.js';
import { UsageError } from '../usage-error.js';

const HELP = `Usage: mcpkit ping TARGET [options]

Connects to the server, sends a ping and prints who answered, in which protocol revision,
and how long the round trip took. A quick "is it up, can I reach it" check.

Examples:
  mcpkit ping http://127.0.0.1:3000/mcp
  mcpkit ping --json -- npx mcpkit demo`;

/** Runs `mcpkit ping` with the arguments after `ping`; resolves with the exit code. */
export function run(argv: string[]): Promise<number> {
  return runClientCommand(argv, {
    name: 'ping',
    help: HELP,
    check: (operands) => {
      if (operands.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(operands[0])}`);
    },
    run: async (c) => {
      const started = performance.now();
      // the stateless era has no ping: server/discover is its cheapest round trip
      if (isStatelessRevision(c.client.protocolVersion)) await c.client.request(Method.ServerDiscover, undefined, c.requestOptions());
      else await c.client.ping(c.requestOptions());
      const roundTripMs = Math.round((performance.now() - started) * 10) / 10;
      const info = c.client.serverInfo;
      if (c.json) {
        printJson({ ok: true, protocolVersion: c.client.protocolVersion, server: info, roundTripMs });
      } else {
        c.print(
          `pong from ${clean(String(info?.name ?? 'the server'), true)} ${clean(String(info?.version ?? ''), true)} (protocol ${c.client.protocolVersion}) in ${roundTripMs} ms\n`,
        );
      }
      return ExitCode.Ok;
    },
  });
}
