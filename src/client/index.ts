/** `mcpkit/client`: the client role. */
export { Client, type ClientOptions, type UrlElicitationRequest } from './client.js';
export { UrlElicitationRequiredError } from '../jsonrpc/errors.js';
