/**
 * The app factory: `createSsrApp(opts)` returns a Hono app that renders the app's routes inside
 * its wrapper (Preact SSR with islands), serves the island bundles from memory and the files of
 * the app's static directory (strong ETags, 304 on `If-None-Match`, immutable caching for
 * versioned URLs, `nosniff`), and answers other methods with 405 (OPTIONS: 204), both with
 * `Allow`. The app hands in everything of its own: routes, islands, wrapper, per-request
 * `State`, page headers (its CSP), the page configuration, and a `wrap` around each handler.
 *
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { etag } from "hono/etag";
import { sha256 } from "hono/utils/crypto";
import { getMimeType } from "hono/utils/mime";
import { type ComponentType, h } from "preact";
import { registerIslands, renderDocument } from "./render.tsx";
import type { IslandBundle } from "./bundle.ts";
import type { AppProps, HandlerContext, Island, PageProps, Route } from "./types.ts";

/** Options of {@link createSsrApp}. */
export interface SsrAppOptions<State> {
  /** Routes in match order (static paths before parameters). */
  routes: readonly Route<State>[];
  /** The app's islands (registered for rendering; their bundles come from `islandBundle`). */
  islands: readonly Island[];
  /** Wraps every page (Fresh's `_app.tsx`); default: the page alone. */
  wrapper?: ComponentType<AppProps<State>>;
  /** The state of one request, handed to its handler and page. */
  state: (c: Context) => State;
  /** Where the island bundles come from (e.g. {@link sharedIslandBundle}). */
  islandBundle: () => Promise<IslandBundle>;
  /** Start loading the island bundles right away (default true). */
  prebundle?: boolean;
  /** The island bundles could not be loaded (pages then render without islands, and say so). */
  onIslandsError?: (cause: unknown) => void;
  /** After a failed island load, pages render without islands this long before a retry (ms). */
  islandRetryMs?: number;
  /** Served under `/static/` (read once per file; `deno compile --include` embeds it). */
  staticDir: URL;
  /** The pages' icon link. */
  icon?: { href: string; type: string };
  /** A stylesheet in `staticDir` linked from every page with its hash as `?v=`. */
  stylesheet?: string;
  /** The page configuration for the browser (opaque JSON data), and its data block's id. */
  pageConfig?: unknown;
  configId?: string;
  /** Title when a route has no `meta`. */
  defaultTitle?: string;
  /** Extra headers of every page (e.g. its Content-Security-Policy). */
  pageHeaders?: Record<string, string>;
  /** Runs around each route's handler (e.g. a deadline shared by a page's reads). */
  wrap?: (run: () => Promise<Response>) => Promise<Response>;
  /** Middleware applied before every route. */
  middleware?: readonly MiddlewareHandler[];
  /** Permanent redirects (path → target), e.g. `/favicon.ico` to an SVG. */
  redirects?: Record<string, string>;
}

/** Methods the pages answer. */
export const PAGE_METHODS = "GET, HEAD, OPTIONS";

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
};

const IMMUTABLE = "public, max-age=31536000, immutable";

/** One static file, read once. */
interface StaticFile {
  body: Uint8Array;
  /** First 64 bits of its SHA-256 (hex): the ETag and the `?v=`. */
  etag: string;
}

/** Reads files under `dir` once each; null for a missing one. */
function staticReader(dir: URL): (rel: string) => Promise<StaticFile | null> {
  const cache = new Map<string, Promise<StaticFile | null>>();
  return (rel) => {
    let p = cache.get(rel);
    if (!p) {
      p = Deno.readFile(new URL(rel, dir)).then(
        async (body) => ({ body, etag: (await sha256(body))!.slice(0, 16) }),
        () => null,
      );
      cache.set(rel, p);
    }
    return p;
  };
}

/** The response for a file with a content hash; `etag()` turns it into a 304 when it matches. */
function fileResponse(body: Uint8Array, hash: string, type: string, versioned: boolean): Response {
  return new Response(body as BodyInit, {
    headers: {
      "content-type": type,
      etag: `"${hash}"`,
      "cache-control": versioned ? IMMUTABLE : "no-cache",
      "x-content-type-options": "nosniff",
    },
  });
}

/** Creates the Hono app that serves `opts.routes`, the island bundles and the static files. */
export function createSsrApp<State>(opts: SsrAppOptions<State>): Hono {
  registerIslands(opts.islands);
  const retryMs = opts.islandRetryMs ?? 30_000;
  let bundle: IslandBundle | null = null;
  let loading: Promise<IslandBundle | null> | null = null;
  let failedAt = -Infinity;
  const loadBundle = () =>
    loading ??= opts.islandBundle().then(
      (b) => (bundle = b),
      (e) => {
        failedAt = Date.now();
        (opts.onIslandsError ?? console.error)(e);
        return null;
      },
    ).finally(() => (loading = null));
  // A failed build is retried, but not on every request (each attempt may run the bundler).
  const currentBundle = async () =>
    bundle ?? (Date.now() - failedAt < retryMs ? null : await loadBundle());
  if (opts.prebundle !== false) loadBundle();

  const readStatic = staticReader(opts.staticDir);
  const stylePromise = opts.stylesheet ? readStatic(opts.stylesheet) : null;
  const wrap = opts.wrap ?? ((run) => run());
  const Wrapper = opts.wrapper;

  const app = new Hono();
  for (const m of opts.middleware ?? []) app.use("*", m);

  for (const route of opts.routes) {
    const mod = route.module;
    app.get(route.path, async (c) => {
      const url = new URL(c.req.url);
      const state = opts.state(c);
      const params = c.req.param() as Record<string, string>;
      const ctx: HandlerContext<unknown, State> = {
        params,
        url,
        state,
        render: async (data, init) => {
          const b = await currentBundle();
          const style = await stylePromise;
          const props: PageProps<unknown, State> = { data, url, params, state };
          const meta = mod.meta?.(props) ?? { title: opts.defaultTitle ?? "" };
          const page = h(mod.default, props);
          const body = Wrapper ? h(Wrapper, { url, state }, page) : page;
          const html = renderDocument(body, {
            title: meta.title,
            description: meta.description,
            config: opts.pageConfig,
            configId: opts.configId,
            icon: opts.icon,
            styleHref: opts.stylesheet
              ? `/static/${opts.stylesheet}${style ? `?v=${style.etag}` : ""}`
              : undefined,
            islandSrc: (name) => {
              const f = b?.files.get(`${name}.js`);
              return `/_islands/${name}.js${f ? `?v=${f.etag}` : ""}`;
            },
            // Without bundles the page says so instead of showing controls that do nothing.
            islandsUnavailable: b === null,
          });
          return new Response(html, {
            status: init?.status ?? 200,
            headers: {
              "content-type": "text/html; charset=utf-8",
              "cache-control": "no-cache",
              ...opts.pageHeaders,
              ...SECURITY_HEADERS,
            },
          });
        },
      };
      const get = mod.handler?.GET;
      return await wrap(async () => get ? await get(c.req.raw, ctx) : await ctx.render(undefined));
    });
    app.all(route.path, otherMethod);
  }

  app.use("/_islands/*", etag());
  app.get("/_islands/:file{[A-Za-z0-9_.-]+\\.js}", async (c) => {
    const file = c.req.param("file");
    const f = (await currentBundle())?.files.get(file);
    if (!f) return c.text("not found", 404);
    // Chunk names carry their own content hash; entries are versioned by `?v=`.
    const versioned = c.req.query("v") !== undefined || file.startsWith("chunk-");
    return fileResponse(f.body, f.etag, "text/javascript; charset=utf-8", versioned);
  });

  app.use("/static/*", etag());
  app.get("/static/:path{[A-Za-z0-9_./-]+}", async (c) => {
    const rel = c.req.param("path");
    if (rel.split("/").some((s) => s === ".." || s === "." || s === "")) {
      return c.text("not found", 404);
    }
    const f = await readStatic(rel);
    if (!f) return c.text("not found", 404);
    const type = getMimeType(rel) ?? "application/octet-stream";
    return fileResponse(f.body, f.etag, type, Boolean(c.req.query("v")));
  });

  const redirects = Object.entries(opts.redirects ?? {});
  for (const [from, to] of redirects) app.get(from, (c) => c.redirect(to, 301));
  for (const p of ["/_islands/*", "/static/*", ...redirects.map(([from]) => from)]) {
    app.all(p, otherMethod);
  }
  return app;
}

/** After the GET routes: an unmatched GET is a 404, any other method a 405. */
export function otherMethod(c: Context): Response | Promise<Response> {
  const m = c.req.method;
  return m === "GET" || m === "HEAD" ? c.notFound() : methodNotAllowed(m);
}

/** 405 (with Allow) for a method the pages do not answer; OPTIONS gets 204 with Allow. */
export function methodNotAllowed(method: string): Response {
  if (method === "OPTIONS") {
    return new Response(null, { status: 204, headers: { allow: PAGE_METHODS } });
  }
  return new Response(
    JSON.stringify({ error: "method_not_allowed", method, allow: ["GET", "HEAD", "OPTIONS"] }),
    {
      status: 405,
      headers: { "content-type": "application/json; charset=utf-8", allow: PAGE_METHODS },
    },
  );
}
