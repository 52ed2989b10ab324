/**
 * Cold-start comparison server: the least an mcpkit application needs to serve one `echo`
 * tool (plain JSON Schema input) over stdio: `McpServer`, `registerTool`, `connect` with the
 * stdio server transport. No demo features, no middleware, no tasks, so the cold-start
 * section (`bench/cold-start.ts`) measures what the library loads for a first
 * `initialize`, not what the demo adds. It imports mcpkit as a user does, from the package
 * (`mcpkit/server`, `mcpkit/stdio`: the bundled dist/, through the package's reference to
 * itself), so the section measures what ships. Exits when stdin ends.
 */
import { McpServer } from 'mcpkit/server';
import { StdioServerTransport } from 'mcpkit/stdio';
import { echoText, MINIMAL_ECHO_TOOL } from './minimal-echo.js';

const server = new McpServer({ name: 'mcpkit-minimal', version: '1.0.0' });
server.registerTool('echo', MINIMAL_ECHO_TOOL, echoText);
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
