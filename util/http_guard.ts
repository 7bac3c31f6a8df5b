/**
 * HTTP guards shared by the keeper API and the web pages (one server): a request body limit
 * answered with `413` JSON, and `X-Content-Type-Options: nosniff` on every response.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";

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
 * Refuses bodies over `maxBytes` with 413 JSON: at once when Content-Length says so (the body is
 * not read), otherwise as soon as a chunked body has streamed past the limit — it is never
 * buffered whole, and the rest of it is cancelled rather than drained. (Like `hono/body-limit`,
 * which leaves the request's own body stream open after the limit trips.)
 */
export function bodyLimitGuard(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return await next();
    const declared = raw.headers.get("content-length");
    if (declared !== null) {
      // The server enforces Content-Length, so a body cannot outgrow what it declares.
      if (Number(declared) > maxBytes) {
        await raw.body.cancel().catch(() => {});
        return payloadTooLarge(maxBytes);
      }
      return await next();
    }
    // Without Content-Length the body is counted as it streams: a chunked HTTP/1.1 body, or the
    // DATA frames of an HTTP/2 request (Deno.serve accepts h2c with prior knowledge, which needs
    // neither header). GET and HEAD are left alone: a Request cannot carry their body, and no
    // handler reads one.
    if (raw.method === "GET" || raw.method === "HEAD") return await next();
    const reader = raw.body.getReader();
    let size = 0;
    let over = false;
    const limited = new ReadableStream<Uint8Array>({
      async pull(ctrl) {
        const { done, value } = await reader.read();
        if (done) return ctrl.close();
        size += value.byteLength;
        if (size > maxBytes) {
          over = true;
          await reader.cancel().catch(() => {});
          ctrl.error(new Error(`request body over ${maxBytes} bytes`));
          return;
        }
        ctrl.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    // Built from parts: copying `raw` itself would touch its `signal` (Deno warns about that).
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: limited,
      duplex: "half",
    } as RequestInit);
    try {
      await next();
    } finally {
      // A handler that did not read the body: let the rest of it go.
      if (!over) await limited.cancel().catch(() => {});
    }
    // Whatever the handler made of the failed read (400, 500), the answer is 413.
    if (over) c.res = payloadTooLarge(maxBytes);
  };
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
