/**
 * The web app: `createWebApp(opts)` resolves the configuration, builds the pages' services
 * (chain reads, history, the keeper API client) and hands the app — routes, islands, `_app`,
 * its `WebState` — to `@vigil/ssr`, which renders the pages and serves the island bundles and
 * the static files. On a local standalone network, served on a loopback address only, it adds
 * the development wallet's signing endpoint (`web/wallet/dev_wallet.ts`). Every response gets
 * `nosniff`, pages a CSP (`web/csp.ts`); bodies are limited; the chain reads of a page share a
 * deadline (`web/data/read_deadline.ts`).
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
import type { Hono } from "hono";
import { createSsrApp } from "@vigil/ssr/app";
import { isCompiled, type IslandBundle } from "@vigil/ssr/bundle";
import { ISLANDS, ROUTES } from "./manifest.ts";
import { getIslandBundle } from "./island_bundle.ts";
import type { WebState } from "./state.ts";
import { resolveWebConfig, type WebConfig, type WebConfigInput } from "./config.ts";
import { isLoopbackBind, type ListenInfo, mountDevWallet } from "./wallet/dev_wallet.ts";
import { PAGE_READ_DEADLINE_MS, timedRpcServer, withReadDeadline } from "./data/read_deadline.ts";
import { contentSecurityPolicy } from "./csp.ts";
import { ChainReader } from "./data/contract_reads.ts";
import { type ApiFetch, KeeperApi } from "./data/api.ts";
import { ChainHistory } from "./data/history.ts";
import { setRpcServer } from "@vigil/soroban/client";
import { bodyLimitGuard, nosniff } from "@vigil/util/http_guard";
import App from "./routes/_app.tsx";
import * as notFound from "./routes/_404.tsx";

export { resolveWebConfig, WEB_VARIABLES, WebConfigError } from "./config.ts";
export type { WebConfig, WebConfigInput } from "./config.ts";
export type { ListenInfo } from "./wallet/dev_wallet.ts";
export type { WebState } from "./state.ts";
export { getIslandBundle } from "./island_bundle.ts";

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

  const ssr = (routes: typeof ROUTES, prebundle = opts.prebundle) =>
    createSsrApp<WebState>({
      routes,
      islands: ISLANDS,
      wrapper: App,
      state: (c) => ({
        config: pub,
        chain,
        history,
        api: fixedApi ?? KeeperApi.forUrl(new URL(c.req.url).origin, opts.apiTimeoutMs),
        now,
      }),
      islandBundle: opts.islands ?? getIslandBundle,
      prebundle,
      onIslandsError: (e) => (opts.error ?? console.error)(islandsUnavailableMessage(e)),
      staticDir: new URL("./static/", import.meta.url),
      stylesheet: "styles.css",
      icon: { href: "/static/favicon.svg", type: "image/svg+xml" },
      redirects: { "/favicon.ico": "/static/favicon.svg" },
      pageConfig: pub,
      configId: "vigil-config",
      defaultTitle: "Vigil",
      pageHeaders: { "content-security-policy": contentSecurityPolicy(pub) },
      // Every chain read of a page shares one deadline: a hung RPC costs at most that.
      wrap: (run) => withReadDeadline(readDeadlineMs, run),
      middleware: [nosniff(), bodyLimitGuard()],
    });
  const app = ssr(ROUTES);

  if (devWallet) {
    mountDevWallet(app, {
      signers,
      passphrase: pub.network.passphrase,
      contracts: [pub.vault, pub.registry],
      listen: opts.listen!,
    });
  }
  // Last: an unknown page gets the HTML 404 with the site's navigation (API paths keep JSON).
  // Its own small app, so its catch-all sits behind every route above, the dev wallet's too.
  const missing = ssr([{ path: "*", module: notFound }], false);
  app.get("*", (c) => missing.fetch(c.req.raw));
  return app;
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
