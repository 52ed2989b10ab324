/**
 * The `echo` tool of the mcpkit benchmark servers (`mcpkit-minimal-stdio.ts`,
 * `mcpkit-minimal-http.ts`, `mcpkit-http.ts`): its config (plain JSON Schema input) and handler.
 */

/** The tool's config for `McpServer.registerTool`. */
export const MINIMAL_ECHO_TOOL = {
  description: 'Returns the message it was given.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
} as const;

/** The tool's handler: the message back as one text block. */
export function echoText(args: { message: string }): { content: { type: 'text'; text: string }[] } {
  return { content: [{ type: 'text', text: args.message }] };
}
