/** The top-level help of `mcpkit` (`mcpkit --help`), with the exit codes. */
import { EXIT_CODE_HELP } from './exit-codes.js';

/** `mcpkit --help`. */
export const USAGE = `Usage: mcpkit <command> [arguments] [options]

Talk to any MCP server (TARGET is a URL, a server NAME from an mcpServers config file,
or -- COMMAND ARGS... for a stdio server):
  list       list the tools, resources, templates and prompts of a server
  call       call a tool (key=value arguments checked against its schema)
  read       read a resource
  prompt     get a prompt
  complete   complete an argument of a prompt or resource template
  ping       check that a server answers
  tasks      list, inspect, fetch or cancel a server's tasks
  types      write TypeScript types and typed functions for a server's tools
  login      sign in to a server URL (OAuth in your browser; tokens kept in a private file)
  logout     forget the tokens of a server URL

Serve your own server:
  run        serve FILE over stdio or --http
  dev        serve FILE and reload on change
  demo       serve the demo server over stdio (or --http)
  proxy      serve a stdio server over HTTP: mcpkit proxy [--port N] -- COMMAND ARGS...
  gateway    serve many servers behind one HTTP endpoint: mcpkit gateway --config FILE

Client configs:
  install    add a server to a client's config (asks first)
  uninstall  remove a server from a client's config
  installed  list servers in a client's config

  completion print a completion script for bash, zsh or fish (mcpkit completion --help)
  help       show this help; mcpkit <command> --help shows a command's options and examples

Examples:
  mcpkit list -- npx mcpkit demo
  mcpkit call http://127.0.0.1:3000/mcp add a=1 b=2
  mcpkit call http://127.0.0.1:3000/mcp add --help     (a tool's parameters)
  mcpkit call long_running_job ms=3000 -- npx mcpkit demo
  mcpkit read my-server test://static-text --config .mcp.json
  mcpkit login https://mcp.example.com/mcp

${EXIT_CODE_HELP}`;
