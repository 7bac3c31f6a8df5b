/**
 * JSON-RPC errors with stellar-rpc's codes.
 *
 * @module
 */

/** JSON-RPC error codes used by stellar-rpc (jrpc2). */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** An error answered as `{"error": {code, message, data?}}` (always with HTTP 200). */
export class RpcError extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
    this.name = "RpcError";
  }
}

/** -32602 invalid params. */
export const invalidParams = (message: string): RpcError =>
  new RpcError(RPC_CODES.invalidParams, message);

/** -32600 invalid request. */
export const invalidRequest = (message: string): RpcError =>
  new RpcError(RPC_CODES.invalidRequest, message);
