/**
 * Keeper entry point: `runKeeper()` loads the configuration (`.env` best-effort, the real
 * environment wins), builds the shared context, runs the chain part's start-up hook, serves the
 * HTTP API on API_PORT, starts the cycle hook, and shuts down cleanly on SIGINT/SIGTERM.
 *
 * Exit status: 0 after a clean shutdown; 1 for configuration errors (all of them on stderr, e.g.
 * `missing required env: KEEPER_SECRET`) or a start-up failure (API port cannot be bound, the
 * start-up hook threw).
 *
 * Runnable directly: `deno run -A keeper/daemon.ts`.
 */
import type { Hono } from "hono";
import { CONFIG_EXIT_CODE, ConfigError, loadConfig, readEnvironment } from "./config.ts";
import { type ApiServer, createApi, serveApi, type SseOptions } from "./api/server.ts";
import { createKeeperContext, type KeeperContext } from "./context.ts";
import { type LoggerOptions, redactSecrets } from "./log/logger.ts";
import { registerUrlSecrets } from "./log/redact.ts";
import { redactUrl } from "@vigil/util/url_redact";
// The chain part (registration, adapters, cycle, recovery): keeper/startup.ts.
import { chainHooks } from "./startup.ts";
import type { CycleHandle, KeeperHooks } from "./ticker.ts";

export { type CycleHandle, type CycleReport, type KeeperHooks, startTicker } from "./ticker.ts";

/** Where the HTTP server listens; `port()` is the bound port once listening (API_PORT=0). */
export interface ListenInfo {
  hostname: string;
  port: () => number;
}

/**
 * SEAM: the hooks `deno run -A keeper/daemon.ts` (and `main.ts keeper`) use. The chain part replaces
 * this with its implementation; until then the keeper serves the API only.
 */
export const DEFAULT_HOOKS: KeeperHooks = chainHooks();

/** Signals this close to the first are the same stop request, echoed ({@link signalKind}). */
export const SIGNAL_ECHO_MS = 500;

/**
 * Classifies each stop signal: the first stops; one within {@link SIGNAL_ECHO_MS} of it is an
 * echo of the same request (a Ctrl-C reaches a keeper twice when a parent — the demo, a process
 * manager — forwards it too, since the terminal signals the whole process group); a later one is
 * an operator's second Ctrl-C, which stops without waiting for the cycle in progress.
 */
export function signalKind(now: () => number): () => "stop" | "echo" | "force" {
  let first: number | undefined;
  return () => {
    const t = now();
    if (first === undefined) {
      first = t;
      return "stop";
    }
    return t - first < SIGNAL_ECHO_MS ? "echo" : "force";
  };
}

/** Options of {@link runKeeper}; all optional, for embedding and tests. */
export interface RunKeeperOptions {
  /** Variables to use instead of `.env` + `Deno.env`. */
  env?: Record<string, string>;
  /** Directory whose `.env` is read. Default: the working directory. */
  dir?: string;
  /** Aborting it shuts the keeper down, like SIGTERM. */
  signal?: AbortSignal;
  /** Listen for SIGINT/SIGTERM. Default true. */
  handleSignals?: boolean;
  hooks?: KeeperHooks;
  sse?: SseOptions;
  logOptions?: LoggerOptions;
  /** Export default process metrics. Default true. */
  defaultMetrics?: boolean;
  /** How long shutdown waits for the cycle in progress before abandoning it. Default 30 000 ms. */
  shutdownTimeoutMs?: number;
  /**
   * Builds the HTTP app (e.g. the API with the web pages mounted). Default: `createApi(ctx)`.
   * `env` is the keeper's merged environment (`.env` overlaid by the process environment), so the
   * web pages see `NEXT_PUBLIC_*` and `WEB_DEV_ACCOUNTS_FILE` from `.env` too — the process
   * environment alone would miss them. `listen` is where the server listens (API_HOST, and the
   * bound port once listening): the web pages' dev wallet serves only those origins.
   */
  app?: (ctx: KeeperContext, env: Record<string, string>, listen: ListenInfo) => Hono;
  /** Called once the API listens. */
  onReady?: (ready: { url: string; port: number; ctx: KeeperContext }) => void;
}

/** Runs the keeper until shutdown; resolves with the process exit status. */
export async function runKeeper(opts: RunKeeperOptions = {}): Promise<number> {
  let env: Record<string, string>;
  const early: string[] = [];
  if (opts.env) {
    env = opts.env;
  } else {
    const read = readEnvironment({ dir: opts.dir });
    env = read.env;
    early.push(...read.warnings);
  }

  let config;
  try {
    config = loadConfig(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      return CONFIG_EXIT_CODE;
    }
    console.error(redactSecrets(`configuration failed: ${e instanceof Error ? e.message : e}`));
    return CONFIG_EXIT_CODE;
  }

  // Provider credentials in the endpoint URLs are scrubbed from every output from here on.
  registerUrlSecrets(config.sorobanRpc);
  registerUrlSecrets(config.horizonUrl);

  const abort = new AbortController();
  const ctx = createKeeperContext(config, {
    signal: abort.signal,
    sse: opts.sse,
    logOptions: opts.logOptions,
    defaultMetrics: opts.defaultMetrics,
  });
  const log = ctx.log;
  for (const w of early) log.warn(w);
  const hooks = opts.hooks ?? DEFAULT_HOOKS;
  log.info("keeper starting", {
    operator: config.operator,
    name: config.keeperName,
    mode: ctx.state.self.mode,
    rpc: redactUrl(config.sorobanRpc),
    vault: config.vaultContract,
    registry: config.registryContract,
    lending_pools: config.lendingPools,
    poll_interval_s: config.pollIntervalSec,
    dry_run: config.dryRun,
    state_dir: config.keeperStateDir,
    watch_addresses: config.watchAddresses.length,
    notify: config.notifyWebhookUrl ? "webhook" : null,
  });
  if (config.lendingPools.length === 0) {
    // A warning: an operator who set only the required variables must not think it liquidates.
    log.warn(
      "no LENDING_POOLS (or LENDING_POOL): vault-monitor-only mode, no liquidation cycle: this keeper will never liquidate",
    );
  }
  if (config.dryRun) {
    log.warn("DRY_RUN=true: transactions are built, simulated and logged as dry-run, never sent");
  }

  // Shutdown triggers: OS signals and the caller's AbortSignal.
  let stopRequested!: (why: string) => void;
  const stopped = new Promise<string>((resolve) => (stopRequested = resolve));
  let forced!: () => void;
  const forcedP = new Promise<void>((resolve) => (forced = resolve));
  const kindOf = signalKind(() => performance.now());
  const onSignal = (name: Deno.Signal) => () => {
    if (kindOf() === "force") {
      log.warn("second signal: not waiting for the cycle in progress", { signal: name });
      forced();
    }
    stopRequested(name);
  };
  const listeners: [Deno.Signal, () => void][] = [];
  if (opts.handleSignals ?? true) {
    for (const s of ["SIGINT", "SIGTERM"] as const) {
      const fn = onSignal(s);
      Deno.addSignalListener(s, fn);
      listeners.push([s, fn]);
    }
  }
  const onAbort = () => stopRequested("abort");
  if (opts.signal?.aborted) stopRequested("abort");
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  const cleanupListeners = () => {
    for (const [s, fn] of listeners) Deno.removeSignalListener(s, fn);
    opts.signal?.removeEventListener("abort", onAbort);
  };

  let server: ApiServer | undefined;
  let cycle: CycleHandle | undefined;
  try {
    if (hooks.prepare) await hooks.prepare(ctx);
    let boundPort = config.apiPort;
    const listen: ListenInfo = { hostname: config.apiHost, port: () => boundPort };
    try {
      server = serveApi(ctx, {
        port: config.apiPort,
        hostname: config.apiHost,
        app: opts.app ? opts.app(ctx, env, listen) : createApi(ctx),
      });
      boundPort = server.addr.port;
    } catch (e) {
      log.error("cannot start the HTTP API", {
        host: config.apiHost,
        port: config.apiPort,
        err: e,
      });
      abort.abort();
      cleanupListeners();
      return CONFIG_EXIT_CODE;
    }
    log.info("api listening", { url: server.url, port: server.addr.port });
    ctx.notify.notify({
      kind: "start",
      text: `keeper started (${ctx.state.self.mode}${
        config.dryRun ? ", dry run" : ""
      }; pools: ${config.lendingPools.length})`,
    });
    opts.onReady?.({ url: server.url, port: server.addr.port, ctx });

    const cycleWanted = hooks.startCycle &&
      (ctx.state.self.mode === "liquidation" || hooks.runInMonitorMode);
    if (cycleWanted && !abort.signal.aborted) cycle = await hooks.startCycle!(ctx);
    else if (!hooks.startCycle) log.info("no cycle installed: serving the API only");
  } catch (e) {
    log.error("start-up failed", { err: e });
    abort.abort();
    await server?.shutdown();
    cleanupListeners();
    return CONFIG_EXIT_CODE;
  }

  const why = await stopped;
  log.info("shutting down", { reason: why });
  abort.abort();
  if (cycle) {
    const timeoutMs = opts.shutdownTimeoutMs ?? 30_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((
      r,
    ) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
    const result = await Promise.race([
      cycle.stop().then(() => "done" as const, (e) => {
        log.error("cycle stop failed", { err: e });
        return "done" as const;
      }),
      timeout,
      forcedP.then(() => "forced" as const),
    ]);
    clearTimeout(timer);
    if (result !== "done") log.warn("abandoning the cycle in progress", { reason: result });
  }
  await server!.shutdown();
  cleanupListeners();
  ctx.notify.notify({ kind: "stop", text: `keeper stopped (${why})` });
  await ctx.notify.close();
  log.info("keeper stopped");
  return 0;
}

if (import.meta.main) {
  Deno.exit(await runKeeper());
}
