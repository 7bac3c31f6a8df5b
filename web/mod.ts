/**
 * The web frontend's server glue: `createWebApp(opts)` returns a Hono app that renders the
 * pages (Preact SSR), serves the island bundles from memory and the static files, and — on
 * a local standalone network only — the development wallet's signing endpoint.
 *
 * Mount it on the keeper's API app so one server serves both (API routes first):
 * ```ts
 * const app = createApi(ctx);
 * app.route("/", createWebApp({ vault, registry, rpcUrl, networkPassphrase,
 *   apiFetch: (p, init) => app.request(p, init) }));
 * ```
 *
 * @module
 */
import { Hono } from "hono";
import { h } from "preact";
import { FeeBumpTransaction, TransactionBuilder } from "@stellar/stellar-sdk";
import { ISLANDS, ROUTES } from "./manifest.ts";
import { registerIslands, renderDocument } from "./render.tsx";
import { getIslandBundle, isCompiled, type IslandBundle } from "./bundle.ts";
import { type DevSigner, resolveWebConfig, type WebConfig, type WebConfigInput } from "./config.ts";
import type { HandlerContext, PageProps, RouteModule, WebState } from "./types.ts";
import { ChainReader } from "../lib/chain.ts";
import { type ApiFetch, KeeperApi } from "../lib/api.ts";
import { ChainHistory } from "../lib/history.ts";
import App from "../routes/_app.tsx";

export { resolveWebConfig, WebConfigError } from "./config.ts";
export type { WebConfig, WebConfigInput } from "./config.ts";

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
    ? "this binary lacks its prebuilt static/islands/: rebuild it with `deno task compile`"
    : "run `npm ci` (it caches every npm package, the bundler's esbuild included, with the lock " +
      "file, and builds static/islands/), or `deno task setup` if the Deno runtime is already " +
      'installed; behind a proxy or a private CA see the README, "Behind a proxy with its own CA"';
  return `web: island bundles unavailable — the pages' interactive parts (wallet, deposit and ` +
    `keeper forms, live log) will NOT work until this is fixed. Cause: ${why}. Fix: ${fix}.`;
}

const STATIC_DIR = new URL("../static/", import.meta.url);
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
  const cfg: WebConfig = resolveWebConfig(opts, env, opts.warn);
  const pub = cfg.public;
  const net = { rpcUrl: pub.network.rpcUrl, passphrase: pub.network.passphrase };
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
              ...SECURITY_HEADERS,
            },
          });
        },
      };
      const get = mod.handler?.GET;
      return get ? await get(c.req.raw, ctx) : await ctx.render(undefined);
    });
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
      rel.split("/").some((s) => s === ".." || s === "." || s === "") || rel.startsWith("islands/")
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

  if (cfg.devSigners.length > 0 && pub.network.local) {
    mountDevWallet(app, cfg.devSigners, pub.network.passphrase, [pub.vault, pub.registry]);
  }
  return app;
}

/**
 * The development wallet's signer (local standalone network only; never mounted elsewhere).
 * It signs only invocations of this frontend's vault/registry, whose source is the dev
 * account, on the local passphrase. It requires a JSON body (so a cross-site form cannot
 * post) and rejects requests whose Origin is not this server.
 */
function mountDevWallet(
  app: Hono,
  signers: DevSigner[],
  passphrase: string,
  contracts: (string | null)[],
) {
  const allowed = new Set(contracts.filter((x): x is string => !!x));
  const bad = (error: string, status = 400) =>
    new Response(JSON.stringify({ error }), {
      status,
      headers: { "content-type": "application/json" },
    });
  app.get("/_dev/wallet/accounts", (c) =>
    c.json({
      network: passphrase,
      accounts: signers.map((s) => ({ name: s.name, address: s.keypair.publicKey() })),
    }));
  app.post("/_dev/wallet/sign", async (c) => {
    const origin = c.req.header("origin");
    if (origin && origin !== new URL(c.req.url).origin) return bad("cross_origin", 403);
    if (!(c.req.header("content-type") ?? "").includes("application/json")) {
      return bad("json_required", 415);
    }
    let body: { address?: string; xdr?: string; networkPassphrase?: string };
    try {
      body = await c.req.json();
    } catch {
      return bad("bad_json");
    }
    if (body.networkPassphrase !== passphrase) return bad("wrong_network");
    const signer = signers.find((s) => s.keypair.publicKey() === body.address);
    if (!signer) return bad("unknown_account", 404);
    let tx;
    try {
      tx = TransactionBuilder.fromXDR(String(body.xdr), passphrase);
    } catch {
      return bad("bad_transaction");
    }
    if (tx instanceof FeeBumpTransaction || tx.source !== signer.keypair.publicKey()) {
      return bad("source_mismatch");
    }
    for (const op of tx.operations) {
      if (op.type !== "invokeHostFunction") return bad("operation_not_allowed");
      // deno-lint-ignore no-explicit-any
      const fn = (op.func as any).toJson?.() as { invoke_contract?: { contract_address?: string } };
      const target = fn?.invoke_contract?.contract_address;
      if (!target || !allowed.has(target)) return bad("contract_not_allowed");
    }
    tx.sign(signer.keypair);
    return c.json({ signedTxXdr: tx.toXDR(), signerAddress: signer.keypair.publicKey() });
  });
}

/** The part of the keeper's configuration the web app needs (structural: `Config`). */
export interface KeeperWebConfig {
  vaultContract: string;
  registryContract: string;
  sorobanRpc: string;
  networkPassphrase: string;
}

/**
 * Mounts the web app on the keeper's API app (one server, API routes first): the pages
 * default to the keeper's own contracts and read its API in-process unless
 * NEXT_PUBLIC_API_URL points elsewhere.
 *
 * ```ts
 * runKeeper({ app: (ctx) => mountWeb(createApi(ctx), ctx.config) });
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
    }),
  );
  return api;
}
