/**
 * The keeper HTTP API (spec "Keeper HTTP API"): a Hono app (`createApi`) that the web pages can be
 * mounted next to, and `serveApi` to run it on `Deno.serve` with graceful shutdown.
 *
 * Routes: GET /healthz, /metrics, /api/state, /api/performance, /api/events (SSE). JSON 404 for
 * unknown paths, 405 + Allow for other methods on known paths, CORS on /api/*.
 */
import { Hono } from "hono";
import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "../log/logger.ts";
import { redactSecrets } from "../log/redact.ts";
import { type KeeperMetrics, METRICS_CONTENT_TYPE } from "../metrics.ts";
import type { DashboardState } from "../state.ts";
import { encodeJson, jsonResponse } from "./json.ts";
import { type Coding, EncodedBody, negotiateCoding } from "./encoding.ts";
import type { SseHub } from "./sse.ts";
import { bodyLimitGuard, nosniff, withNosniff } from "@vigil/util/http_guard";
import { type KeeperFacts, performanceView, stateView } from "./views.ts";

export { SseHub, type SseOptions } from "./sse.ts";
export { API_VERSION, type KeeperFacts } from "./views.ts";
export { encodeJson, jsonResponse } from "./json.ts";
export { bodyLimitGuard, MAX_BODY_BYTES, nosniff } from "@vigil/util/http_guard";

/** What the API reads. The keeper's context satisfies it; tests can build one directly. */
export interface ApiContext {
  log: Logger;
  state: DashboardState;
  metrics: KeeperMetrics;
  sse: SseHub;
  info: KeeperFacts;
  /** Allowed CORS origins (`"*"` = any); null = default (own origin + localhost dev origins). */
  corsOrigins: readonly string[] | null;
}

/** Methods every API route answers. */
export const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

const MAX_EVENTS = 500;
/** Events in `/api/state` when `?events=` is not given. */
export const DEFAULT_EVENTS = 50;
/** Positions in `/api/state` when `?positions=` is not given. */
export const DEFAULT_POSITIONS = 50;
/** Liquidations in `/api/performance` when `?liquidations=` is not given. */
export const DEFAULT_LIQUIDATIONS = 50;
const BODY_TTL_MS = 1000;

/** True for origins a local frontend dev server uses (http(s)://localhost|127.0.0.1|[::1]:any). */
export function isLocalDevOrigin(origin: string): boolean {
  try {
    const u = new URL(origin);
    return (u.protocol === "http:" || u.protocol === "https:") &&
      (u.hostname === "localhost" || u.hostname === "127.0.0.1" || u.hostname === "[::1]");
  } catch {
    return false;
  }
}

/** CORS for the frontend: read-only GET API, no credentials. */
export function corsMiddleware(origins: readonly string[] | null): MiddlewareHandler {
  const any = origins?.includes("*") ?? false;
  const allowed = (origin: string, self: string): boolean =>
    any || origin === self ||
    (origins === null ? isLocalDevOrigin(origin) : origins.includes(origin));
  return async (c, next) => {
    const origin = c.req.header("origin");
    const ok = origin !== undefined && allowed(origin, new URL(c.req.url).origin);
    if (c.req.method === "OPTIONS") {
      const h = new Headers({ allow: ALLOWED_METHODS, vary: "Origin" });
      if (ok) {
        h.set("access-control-allow-origin", any ? "*" : origin!);
        h.set("access-control-allow-methods", ALLOWED_METHODS);
        h.set(
          "access-control-allow-headers",
          "Last-Event-ID, If-None-Match, Cache-Control, Content-Type",
        );
        h.set("access-control-max-age", "600");
      }
      return new Response(null, { status: 204, headers: h });
    }
    await next();
    if (ok) {
      c.res.headers.set("access-control-allow-origin", any ? "*" : origin!);
      c.res.headers.set("access-control-expose-headers", "ETag, Retry-After");
    }
    c.res.headers.append("vary", "Origin");
  };
}

function intParam(v: string | undefined, dflt: number, max: number): number {
  if (v === undefined || !/^\d{1,9}$/.test(v)) return dflt;
  return Math.min(Number(v), max);
}

function notModified(c: Context, etag: string): Response | null {
  const inm = c.req.header("if-none-match");
  if (inm && inm.split(",").some((t) => t.trim() === etag)) {
    return new Response(null, { status: 304, headers: { etag, "cache-control": "no-cache" } });
  }
  return null;
}

/** JSON 404 body for an unknown path. */
export function notFoundResponse(path: string): Response {
  return jsonResponse({ error: "not_found", path }, 404);
}

/** Builds the API app. Mount it with `app.route("/", createApi(ctx))` or serve it directly. */
export function createApi(ctx: ApiContext): Hono {
  const app = new Hono();
  const paths = ["/healthz", "/metrics", "/api/state", "/api/performance", "/api/events"];

  // First, so they cover every route mounted on this app (the web pages too), 404s and errors.
  app.use("*", nosniff());
  app.use("*", bodyLimitGuard());
  app.use("/api/*", corsMiddleware(ctx.corsOrigins));

  app.get("/healthz", () => new Response(null, { status: 200 }));

  app.get("/metrics", async () => {
    const text = await ctx.metrics.render();
    return new Response(redactSecrets(text), {
      headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" },
    });
  });

  // Bodies are rebuilt only when the state or the log changed (the ETag) or after BODY_TTL_MS
  // (so generated_at/uptime stay fresh): many dashboards polling cost one build per change. Each
  // body keeps its gzip/br forms, so it is also compressed once per coding, not per request.
  const cache = new Map<string, { at: number; body: EncodedBody }>();
  const cachedJson = (c: Context, etag: string, build: () => unknown): Response => {
    const now = Date.now();
    let hit = cache.get(etag);
    if (!hit || now - hit.at > BODY_TTL_MS) {
      hit = { at: now, body: new EncodedBody(encodeJson(build())) };
      if (cache.size >= 16) cache.clear();
      cache.set(etag, hit);
    }
    const coding: Coding = negotiateCoding(c.req.header("accept-encoding"));
    const out = hit.body.get(coding);
    const headers: Record<string, string> = {
      "content-type": "application/json; charset=utf-8",
      etag,
      "cache-control": "no-cache",
      vary: "Accept-Encoding",
    };
    // Deno.serve would otherwise compress again per request; identity is sent as it is.
    if (out.coding !== "identity") headers["content-encoding"] = out.coding;
    return new Response(out.bytes, { headers });
  };

  app.get("/api/state", (c) => {
    const events = intParam(c.req.query("events"), DEFAULT_EVENTS, MAX_EVENTS);
    const pq = c.req.query("positions");
    const positions = pq === "all"
      ? null
      : intParam(pq, DEFAULT_POSITIONS, Number.MAX_SAFE_INTEGER);
    const etag = `W/"s${ctx.state.version}-l${ctx.log.lastId ?? 0}-e${events}-p${
      positions ?? "all"
    }"`;
    return notModified(c, etag) ??
      cachedJson(c, etag, () => stateView(ctx.state, ctx.log, ctx.info, { events, positions }));
  });

  app.get("/api/performance", (c) => {
    const lq = c.req.query("liquidations");
    const liquidations = lq === "all"
      ? null
      : intParam(lq, DEFAULT_LIQUIDATIONS, Number.MAX_SAFE_INTEGER);
    const etag = `W/"p${ctx.state.version}-q${liquidations ?? "all"}"`;
    return notModified(c, etag) ??
      cachedJson(c, etag, () => performanceView(ctx.state, { liquidations }));
  });

  app.get("/api/events", (c) => {
    // Hono answers HEAD through the GET handler; a HEAD must not take an SSE slot.
    if (c.req.raw.method === "HEAD") {
      return new Response(null, {
        headers: { "content-type": "text/event-stream; charset=utf-8" },
      });
    }
    return ctx.sse.open({
      lastEventId: c.req.header("last-event-id") ?? c.req.query("lastEventId") ?? null,
      backlog: intParam(c.req.query("backlog"), 0, MAX_EVENTS),
      // Opt-in: existing clients keep the plain-text data they parse.
      format: c.req.query("format") === "json" ? "json" : "text",
    });
  });

  for (const p of paths) {
    app.all(p, (c) => {
      if (c.req.method === "OPTIONS") {
        return new Response(null, { status: 204, headers: { allow: ALLOWED_METHODS } });
      }
      return jsonResponse(
        { error: "method_not_allowed", method: c.req.method, allow: ["GET", "HEAD", "OPTIONS"] },
        405,
        { allow: ALLOWED_METHODS },
      );
    });
  }

  app.notFound((c) => notFoundResponse(new URL(c.req.url).pathname));
  app.onError((err, c) => {
    ctx.log.error("api request failed", { path: new URL(c.req.url).pathname, err });
    return jsonResponse({ error: "internal_error" }, 500);
  });
  return app;
}

/** A running API server. */
export interface ApiServer {
  /** Bound address (the real port when API_PORT=0). */
  readonly addr: Deno.NetAddr;
  /** `http://host:port` for the bound address (127.0.0.1 when bound to all interfaces). */
  readonly url: string;
  /** Closes SSE streams, stops accepting connections and waits for in-flight requests. */
  shutdown(): Promise<void>;
  /** Resolves when the server has stopped. */
  readonly finished: Promise<void>;
}

/** Serves `app` (default: `createApi(ctx)`) on `Deno.serve`. Throws if the port cannot be bound. */
export function serveApi(
  ctx: Pick<ApiContext, "sse" | "log"> & Partial<ApiContext>,
  opts: { port: number; hostname?: string; app?: Hono },
): ApiServer {
  const app = opts.app ?? createApi(ctx as ApiContext);
  const server = Deno.serve({
    port: opts.port,
    hostname: opts.hostname ?? "127.0.0.1",
    onListen: () => {}, // Deno's default prints to stdout; the keeper logs instead.
    onError: (err) => {
      ctx.log.error("http server error", { err });
      return withNosniff(jsonResponse({ error: "internal_error" }, 500));
    },
  }, app.fetch);
  const addr = server.addr as Deno.NetAddr;
  const host = addr.hostname === "0.0.0.0" || addr.hostname === "::" ? "127.0.0.1" : addr.hostname;
  let stopping: Promise<void> | undefined;
  return {
    addr,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${addr.port}`,
    shutdown() {
      stopping ??= (async () => {
        ctx.sse.closeAll();
        await server.shutdown();
      })();
      return stopping;
    },
    finished: server.finished,
  };
}
