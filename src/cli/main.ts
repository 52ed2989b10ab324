/**
 * The `mcpkit` command line.
 *
 *   mcpkit demo            serve the demo server over stdio
 *   mcpkit help            usage
 *
 * Only protocol messages go to stdout; everything else goes to stderr.
 */
import { createDemoServer } from '../demo/server.js';
import { StdioServerTransport } from '../stdio/index.js';

const USAGE = `Usage: mcpkit <command>

Commands:
  demo      Serve the demo MCP server over stdio (every tool, resource and prompt
            of the conformance suite's server contract, plus echo and blob).
  help      Show this help.
`;

/** Runs the CLI with `argv` (without node and script). Resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo':
      return demo(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stderr.write(USAGE);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`mcpkit: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return 2;
  }
}

async function demo(args: string[]): Promise<number> {
  if (args.includes('--http')) {
    process.stderr.write('mcpkit demo: the HTTP transport is not part of this build yet; serving stdio only is supported.\n');
    return 2;
  }
  const server = createDemoServer({ onError: (err) => process.stderr.write(`mcpkit demo: ${err.message}\n`) });
  const transport = new StdioServerTransport();
  const session = await server.connect(transport);
  await new Promise<void>((resolve) => session.endpoint.onClose(() => resolve()));
  return 0;
}
