/**
 * HTTP guards shared by the keeper API and the web pages (one server): a request body limit
 * answered with `413` JSON, and `X-Content-Type-Options: nosniff` on every response.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/**
 * Largest request body accepted (bytes). The API takes no bodies at all; the largest legitimate
 * one is the development wallet's signing request, a Soroban transaction in base64 (the network
 * caps a transaction at 132 KiB of XDR, so ≈ 176 KiB of base64 plus the JSON around it).
 */
export const MAX_BODY_BYTES = 256 * 1024;

/** The 413 body: `{"error":"payload_too_large","limit_bytes":N}`. */
export function payloadTooLarge(limit: number): Response {
  return new Response(JSON.stringify({ error: "payload_too_large", limit_bytes: limit }), {
    status: 413,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
      // The rest of an oversized body is not read; ask the client not to reuse the connection.
      connection: "close",
    },
  });
}

/**
 * Refuses bodies over `maxBytes` with 413 JSON: at once when Content-Length says so, otherwise
 * as soon as a chunked body has streamed past the limit (it is never buffered whole).
 */
export function bodyLimitGuard(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({ maxSize: maxBytes, onError: () => payloadTooLarge(maxBytes) });
}

/** Sets `X-Content-Type-Options: nosniff` on the response (copying it when its headers are frozen). */
export function withNosniff(res: Response): Response {
  try {
    res.headers.set("x-content-type-options", "nosniff");
    return res;
  } catch {
    // Immutable headers (e.g. Response.redirect): rebuild around the same body.
    const copy = new Response(res.body, res);
    copy.headers.set("x-content-type-options", "nosniff");
    return copy;
  }
}

/** `X-Content-Type-Options: nosniff` on every response of the app, errors and 404s included. */
export function nosniff(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const res = withNosniff(c.res);
    if (res !== c.res) c.res = res;
  };
}
