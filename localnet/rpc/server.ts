/**
 * The node's HTTP server: JSON-RPC 2.0 at `/rpc` (always HTTP 200, id echoed, batches
 * accepted), friendbot at `/friendbot?addr=G…` (GET and POST), CORS on every answer.
 * Request bodies over {@link MAX_RPC_BODY_BYTES} get HTTP 413 with a JSON-RPC error, without
 * being read whole.
 *
 * @module
 */
import type { Chain } from "../ledger.ts";
import { friendbot } from "../friendbot.ts";
import { RPC_CODES, RpcError } from "./errors.ts";
import type { Handler } from "./methods.ts";

const CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "Content-Type, X-Client-Name, X-Client-Version, Authorization",
  "access-control-max-age": "86400",
};

const RPC_PATHS = new Set(["/rpc", "/rpc/", "/soroban/rpc", "/soroban/rpc/", "/"]);

/**
 * Largest JSON-RPC request body accepted (bytes). A transaction envelope is at most 132 KiB of
 * XDR (≈ 176 KiB of base64, e.g. a contract upload); a batch of a few of them fits easily.
 */
export const MAX_RPC_BODY_BYTES = 4 * 1024 * 1024;

function json(body: unknown, status = 200, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json",
      "x-content-type-options": "nosniff",
      ...CORS,
      ...extra,
    },
  });
}

function tooLarge(): Response {
  return json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: RPC_CODES.invalidRequest,
        message: `request body too large (limit ${MAX_RPC_BODY_BYTES} bytes)`,
      },
    },
    413,
    // The rest of the body is not read: the connection cannot be reused.
    { connection: "close" },
  );
}

/** The body as text, or null once it exceeds `max` bytes (it is then cancelled, not read on). */
async function readLimited(request: Request, max: number): Promise<string | null> {
  const declared = Number(request.headers.get("content-length") ?? "");
  if (Number.isFinite(declared) && declared > max) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

interface RpcRequest {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** Dispatches one JSON-RPC request object; returns the response object. */
export async function dispatch(
  table: Map<string, Handler>,
  chain: Chain,
  req: unknown,
  onError?: (method: string, e: unknown) => void,
): Promise<Record<string, unknown>> {
  const r =
    (typeof req === "object" && req !== null && !Array.isArray(req) ? req : {}) as RpcRequest;
  const id = r.id ?? null;
  const fail = (code: number, message: string, data?: unknown) => ({
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  });
  if (r.jsonrpc !== "2.0" || typeof r.method !== "string") {
    return fail(
      RPC_CODES.invalidRequest,
      "invalid request: expected a JSON-RPC 2.0 request object",
    );
  }
  const handler = table.get(r.method);
  if (!handler) return fail(RPC_CODES.methodNotFound, `method not found: ${r.method}`);
  try {
    // Every RPC read sees closed state: effects applied in-process are closed first.
    chain.settle();
    const result = await handler(r.params ?? null);
    return { jsonrpc: "2.0", id, result };
  } catch (e) {
    if (e instanceof RpcError) return fail(e.code, e.message, e.data);
    onError?.(r.method, e);
    return fail(RPC_CODES.internalError, `internal error: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** Handles one HTTP request of the node. */
export async function handleHttp(
  request: Request,
  table: Map<string, Handler>,
  chain: Chain,
  onError?: (method: string, e: unknown) => void,
): Promise<Response> {
  const url = new URL(request.url);
  if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
  if (url.pathname === "/friendbot" || url.pathname === "/friendbot/") {
    if (request.method !== "GET" && request.method !== "POST") {
      return json({ title: "Method Not Allowed", status: 405 }, 405);
    }
    await request.body?.cancel();
    const reply = await friendbot(chain, url.searchParams.get("addr"));
    return json(reply.body, reply.status);
  }
  if (!RPC_PATHS.has(url.pathname)) {
    await request.body?.cancel();
    return json({ error: "not found" }, 404);
  }
  if (request.method !== "POST") {
    await request.body?.cancel();
    return json({ error: "JSON-RPC endpoint: POST a JSON-RPC 2.0 request" }, 405);
  }
  const text = await readLimited(request, MAX_RPC_BODY_BYTES).catch(() => "");
  if (text === null) return tooLarge();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json({
      jsonrpc: "2.0",
      id: null,
      error: { code: RPC_CODES.parseError, message: "parse error" },
    });
  }
  if (Array.isArray(body)) {
    if (body.length === 0) {
      return json({
        jsonrpc: "2.0",
        id: null,
        error: { code: RPC_CODES.invalidRequest, message: "empty batch" },
      });
    }
    const out = [];
    for (const r of body) out.push(await dispatch(table, chain, r, onError));
    return json(out);
  }
  return json(await dispatch(table, chain, body, onError));
}
