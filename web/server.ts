/**
 * The web frontend's server glue: `createWebApp(opts)` returns a Hono app that renders the
 * pages (Preact SSR), serves the island bundles from memory and the static files, and — on
 * a local standalone network, served on a loopback address only — the development wallet's
 * signing endpoint (`web/wallet/dev_wallet.ts`). Every response gets `nosniff`, pages a CSP
 * (`web/csp.ts`); bodies are limited; the chain reads of a page share a deadline
 * (`web/data/read_deadline.ts`).
 *
 * Mount it on the keeper's API app so one server serves both (API routes first):
 * ```ts
 * const app = createApi(ctx);
 * app.route("/", createWebApp({ vault, registry, rpcUrl, networkPassphrase,
 *   apiFetch: (p, init) => app.request(p, init), listen: { hostname, port: () => port } }));
 * ```
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { h } from "preact";
import { ISLANDS, ROUTES } from "./manifest.ts";
import { registerIslands, renderDocument } from "@vigil/ssr/render";
import { getIslandBundle, isCompiled, type IslandBundle } from "@vigil/ssr/bundle";
import { resolveWebConfig, type WebConfig, type WebConfigInput } from "./config.ts";
import type { HandlerContext, PageProps, RouteModule, WebState } from "@vigil/ssr/types";
import { isLoopbackBind, type ListenInfo, mountDevWallet } from "./wallet/dev_wallet.ts";
import { PAGE_READ_DEADLINE_MS, timedRpcServer, withReadDeadline } from "./data/read_deadline.ts";
import { contentSecurityPolicy } from "./csp.ts";
import { ChainReader } from "./data/chain.ts";
import { type ApiFetch, KeeperApi } from "./data/api.ts";
import { ChainHistory } from "./data/history.ts";
import { setRpcServer } from "@vigil/soroban/client";
import { bodyLimitGuard, nosniff } from "@vigil/keeper/api/guard";
import App from "./routes/_app.tsx";

export { resolveWebConfig, WEB_VARIABLES, WebConfigError } from "./config.ts";
export type { WebConfig, WebConfigInput } from "./config.ts";
export type { ListenInfo } from "./wallet/dev_wallet.ts";

registerIslands(ISLANDS);

/** Options of {@link createWebApp}. */
export interface WebAppOptions extends WebConfigInput {
  /**
   * How to reach the keeper's own API when NEXT_PUBLIC_API_URL is unset (in-process,
   * e.g. `(p, init) => keeperApp.request(p, init)`). Without it, the page's own origin.
   */
  apiFetch?: ApiFetch;
  /** Environment to read (default: the process environment). */
  env?: Record<string, string | undefined>;
  /** Clock (ms), for tests. */
  now?: () => number;
  /** Warning sink (default console.warn). */
  warn?: (msg: string) => void;
  /** Keeper API timeout for server-side reads (ms, default 2000). */
  apiTimeoutMs?: number;
  /** Start bundling islands right away (default true). */
  prebundle?: boolean;
  /**
   * Where the server listens. The development wallet is mounted only with this, on a loopback
   * address, and signs only for requests from that address's origins.
   */
  listen?: ListenInfo;
  /** Budget of one page's chain reads, ms (default 3000); then "—" and the error notice. */
  readDeadlineMs?: number;
  /** Addresses whose keys the dev wallet must never hold (the keeper's own operator). */
  excludeDevAddresses?: string[];
  /** Where the island bundle comes from (default: the process-wide {@link getIslandBundle}). */
  islands?: () => Promise<IslandBundle>;
  /** Error sink (default console.error): the island bundles could not be loaded. */
  error?: (msg: string) => void;
}

/** After a failed island build, pages render without islands for this long before a retry. */
const ISLAND_RETRY_MS = 30_000;

/** The start-up error when the island bundles cannot be produced: what breaks, why, the fix. */
export function islandsUnavailableMessage(cause: unknown, compiled = isCompiled()): string {
  const why = String((cause as Error)?.message ?? cause).trim().split("\n").slice(0, 6).join(" | ");
  const fix = compiled
    ? "this binary lacks its prebuilt web/static/islands/: rebuild it with `deno task compile`"
    : "run `npm ci` (it caches every npm package, the bundler's esbuild included, with the lock " +
      "file, and builds web/static/islands/), or `deno task setup` if the Deno runtime is already " +
      'installed; behind a proxy or a private CA see the README, "Behind a proxy with its own CA"';
  return `web: island bundles unavailable — the pages' interactive parts (wallet, deposit and ` +
    `keeper forms, live log) will NOT work until this is fixed. Cause: ${why}. Fix: ${fix}.`;
}

/** Methods the pages answer. */
const PAGE_METHODS = "GET, HEAD, OPTIONS";

const STATIC_DIR = new URL("./static/", import.meta.url);
const STATIC_TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  js: "text/javascript; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  json: "application/json",
  woff2: "font/woff2",
};

async function etagOf(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(d.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
}

const staticCache = new Map<string, Promise<{ body: Uint8Array; etag: string } | null>>();

/** Reads a file under static/ once (embedded by `deno compile --include static`). */
function readStatic(rel: string) {
  let p = staticCache.get(rel);
  if (!p) {
    p = Deno.readFile(new URL(rel, STATIC_DIR)).then(
      async (body) => ({ body, etag: await etagOf(body) }),
      () => null,
    );
    staticCache.set(rel, p);
  }
  return p;
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
};

/** Creates the web app (pages, island bundles, static files, local dev wallet). */
export function createWebApp(opts: WebAppOptions = {}): Hono {
  const env = opts.env ?? Deno.env.toObject();
  const warn = opts.warn ?? ((m: string) => console.warn(m));
  const cfg: WebConfig = resolveWebConfig(opts, env, warn);
  const excluded = new Set(opts.excludeDevAddresses ?? []);
  const signers = cfg.devSigners.filter((s) => {
    if (!excluded.has(s.keypair.publicKey())) return true;
    warn(`web: development wallet: ${s.name} is this keeper's own key; not offered`);
    return false;
  });
  let devWallet = signers.length > 0 && cfg.public.network.local;
  if (devWallet && !opts.listen) {
    warn("web: development wallet disabled: the server's listen address is unknown");
    devWallet = false;
  } else if (devWallet && !isLoopbackBind(opts.listen!.hostname)) {
    warn(
      `web: development wallet disabled: the server listens on ${
        opts.listen!.hostname
      }, not a loopback address`,
    );
    devWallet = false;
  }
  const pub = {
    ...cfg.public,
    devWallet: devWallet
      ? { accounts: signers.map((s) => ({ name: s.name, address: s.keypair.publicKey() })) }
      : null,
  };
  // Server-side reads use the configured RPC (credentials included), with a timeout on every
  // request; the pages only ever see pub.network.rpcUrl.
  const readDeadlineMs = opts.readDeadlineMs ?? PAGE_READ_DEADLINE_MS;
  setRpcServer(cfg.rpcUrl, timedRpcServer(cfg.rpcUrl, readDeadlineMs));
  const net = { rpcUrl: cfg.rpcUrl, passphrase: pub.network.passphrase };
  const chain = new ChainReader(net, pub.vault, pub.registry);
  const history = new ChainHistory(net, pub.vault, pub.registry);
  const fixedApi = pub.apiUrl
    ? KeeperApi.forUrl(pub.apiUrl, opts.apiTimeoutMs)
    : opts.apiFetch
    ? new KeeperApi(opts.apiFetch, opts.apiTimeoutMs)
    : null;
  const now = opts.now ?? (() => Date.now());
  let bundle: IslandBundle | null = null;
  let loading: Promise<IslandBundle | null> | null = null;
  let failedAt = -Infinity;
  const loadBundle = () =>
    loading ??= (opts.islands ?? getIslandBundle)().then(
      (b) => (bundle = b),
      (e) => {
        failedAt = Date.now();
        (opts.error ?? console.error)(islandsUnavailableMessage(e));
        return null;
      },
    ).finally(() => (loading = null));
  // A failed build is retried, but not on every request (each attempt runs the bundler).
  const currentBundle = async () =>
    bundle ?? (Date.now() - failedAt < ISLAND_RETRY_MS ? null : await loadBundle());
  if (opts.prebundle !== false) loadBundle();

  const app = new Hono();
  app.use("*", nosniff());
  app.use("*", bodyLimitGuard());
  const csp = contentSecurityPolicy(pub);

  const stylePromise = readStatic("styles.css");

  for (const route of ROUTES) {
    const mod = route.module as RouteModule<unknown>;
    app.get(route.path, async (c) => {
      const url = new URL(c.req.url);
      const state: WebState = {
        config: pub,
        chain,
        history,
        api: fixedApi ?? KeeperApi.forUrl(url.origin, opts.apiTimeoutMs),
        now,
      };
      const params = c.req.param() as Record<string, string>;
      const ctx: HandlerContext<unknown> = {
        params,
        url,
        state,
        render: async (data, init) => {
          const b = await currentBundle();
          const style = await stylePromise;
          const props: PageProps<unknown> = { data, url, params, state };
          const meta = mod.meta?.(props) ?? { title: "Vigil" };
          const body = h(App, { config: pub, path: url.pathname }, h(mod.default, props));
          const html = renderDocument(body, {
            title: meta.title,
            description: meta.description,
            config: pub,
            styleHref: `/static/styles.css${style ? `?v=${style.etag}` : ""}`,
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
              "content-security-policy": csp,
              ...SECURITY_HEADERS,
            },
          });
        },
      };
      const get = mod.handler?.GET;
      // Every chain read of this page shares one deadline: a hung RPC costs at most that.
      return await withReadDeadline(
        readDeadlineMs,
        async () => get ? await get(c.req.raw, ctx) : await ctx.render(undefined),
      );
    });
    app.all(route.path, (c) => otherMethod(c));
  }

  app.get("/_islands/:file{[A-Za-z0-9_.-]+\\.js}", async (c) => {
    const b = await currentBundle();
    const f = b?.files.get(c.req.param("file"));
    if (!f) return c.text("not found", 404);
    const versioned = c.req.query("v") !== undefined || c.req.param("file").startsWith("chunk-");
    if (c.req.header("if-none-match") === `"${f.etag}"`) return new Response(null, { status: 304 });
    return new Response(f.body as BodyInit, {
      headers: {
        "content-type": "text/javascript; charset=utf-8",
        etag: `"${f.etag}"`,
        "cache-control": versioned ? "public, max-age=31536000, immutable" : "no-cache",
        "x-content-type-options": "nosniff",
      },
    });
  });

  app.get("/static/:path{[A-Za-z0-9_./-]+}", async (c) => {
    const rel = c.req.param("path");
    if (
      rel.split("/").some((s) => s === ".." || s === "." || s === "") || rel.startsWith("web/islands/")
    ) {
      return c.text("not found", 404);
    }
    const f = await readStatic(rel);
    if (!f) return c.text("not found", 404);
    if (c.req.header("if-none-match") === `"${f.etag}"`) return new Response(null, { status: 304 });
    const ext = rel.split(".").pop() ?? "";
    return new Response(f.body as BodyInit, {
      headers: {
        "content-type": STATIC_TYPES[ext] ?? "application/octet-stream",
        etag: `"${f.etag}"`,
        "cache-control": c.req.query("v") ? "public, max-age=31536000, immutable" : "no-cache",
        "x-content-type-options": "nosniff",
      },
    });
  });

  app.get("/favicon.ico", (c) => c.redirect("/static/favicon.svg", 301));
  for (const p of ["/_islands/*", "/static/*", "/favicon.ico"]) {
    app.all(p, (c) => otherMethod(c));
  }

  if (devWallet) {
    mountDevWallet(app, {
      signers,
      passphrase: pub.network.passphrase,
      contracts: [pub.vault, pub.registry],
      listen: opts.listen!,
    });
  }
  return app;
}

/** After the GET routes: an unmatched GET is a 404, any other method a 405. */
function otherMethod(c: Context): Response | Promise<Response> {
  const m = c.req.method;
  return m === "GET" || m === "HEAD" ? c.notFound() : methodNotAllowed(m);
}

/** 405 (with Allow) for a method the pages do not answer; OPTIONS gets 204 with Allow. */
function methodNotAllowed(method: string): Response {
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

/** The part of the keeper's configuration the web app needs (structural: `Config`). */
export interface KeeperWebConfig {
  vaultContract: string;
  registryContract: string;
  sorobanRpc: string;
  networkPassphrase: string;
  /** The keeper's own public key: never offered by the development wallet. */
  operator?: string;
}

/**
 * Mounts the web app on the keeper's API app (one server, API routes first): the pages
 * default to the keeper's own contracts and read its API in-process unless
 * NEXT_PUBLIC_API_URL points elsewhere.
 *
 * ```ts
 * runKeeper({ app: (ctx, env, listen) => mountWeb(createApi(ctx), ctx.config, { env, listen }) });
 * ```
 */
export function mountWeb(api: Hono, keeper: KeeperWebConfig, opts: WebAppOptions = {}): Hono {
  api.route(
    "/",
    createWebApp({
      defaults: { vault: keeper.vaultContract, registry: keeper.registryContract },
      rpcUrl: keeper.sorobanRpc,
      networkPassphrase: keeper.networkPassphrase,
      apiFetch: (path, init) => Promise.resolve(api.request(path, init)),
      ...opts,
      excludeDevAddresses: [
        ...(keeper.operator ? [keeper.operator] : []),
        ...(opts.excludeDevAddresses ?? []),
      ],
    }),
  );
  return api;
}
