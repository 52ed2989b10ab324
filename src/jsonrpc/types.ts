/**
 * JSON-RPC 2.0 message shapes as MCP uses them.
 *
 * MCP narrows JSON-RPC: ids are strings or integers and never null; `params` is an
 * object when present. Keys are matched exactly (no case folding).
 */

/** A request id: a string or an integer, never null. */
export type RequestId = string | number;

/** A JSON object with string keys. */
export type JSONObject = { [key: string]: unknown };

export interface JSONRPCRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: JSONObject;
}

export interface JSONRPCNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JSONObject;
}

export interface JSONRPCResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: JSONObject;
}

/** The error object carried by an error response. */
export interface JSONRPCErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JSONRPCErrorResponse {
  jsonrpc: '2.0';
  /** `null` only when the request's id could not be read (parse error, invalid envelope). */
  id: RequestId | null;
  error: JSONRPCErrorObject;
}

export type JSONRPCResponse = JSONRPCResultResponse | JSONRPCErrorResponse;
export type JSONRPCMessage = JSONRPCRequest | JSONRPCNotification | JSONRPCResponse;

/** Standard JSON-RPC and MCP error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2025-11-25: a URL-mode elicitation must complete before the request can proceed. */
  URLElicitationRequired: -32042,
  /** Resource not found (2025-era servers; 2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** True when `value` is a valid MCP request id (string or integer). */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}
