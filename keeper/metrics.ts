/**
 * Prometheus metrics of one keeper (prom-client, non-global Registry). Counters are incremented by
 * the keeper as things happen; gauges that mirror state (TVL, outstanding draw, SSE clients, …)
 * read their value at scrape time from bound sources, so they can never drift from the state.
 *
 * Money gauges are in whole tokens as floats (USDC or XLM, i.e. 7-decimal units / 1e7); exact
 * amounts are in the JSON API as integer-unit strings.
 */
import client from "prom-client";
import type { rpc } from "@stellar/stellar-sdk";
import type { PositionCounts } from "./state.ts";

/** Content type of the text exposition. */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Live values read at scrape time. Unbound or null sources export 0. */
export interface MetricSources {
  /** Vault total_usdc in 7-decimal units. */
  vaultTotalUsdc?: () => bigint | null;
  /** Seconds since epoch of the last vault read. */
  vaultReadAt?: () => Date | null;
  /** This keeper's outstanding draw in 7-decimal units. */
  outstandingDraw?: () => bigint | null;
  /** This keeper's native (XLM) balance in stroops. */
  nativeBalance?: () => bigint | null;
  /** Open SSE connections. */
  sseActive?: () => number;
  /** Positions tracked and underwater (HF < 1). */
  /** Position counts per pool (the `pool` label of the positions gauges). */
  positionsByPool?: () => ReadonlyMap<string, PositionCounts>;
}

/** The keeper's metrics. */
export interface KeeperMetrics {
  readonly registry: client.Registry;
  readonly cyclesTotal: client.Counter;
  readonly cycleOverrunsTotal: client.Counter;
  readonly cycleDuration: client.Histogram;
  readonly lastCycleTimestamp: client.Gauge;
  readonly liquidationsTotal: client.Counter<"pool">;
  /** Labelled by outcome: filled, lost_race, held, failed. */
  readonly liquidationAttemptsTotal: client.Counter<"outcome" | "pool">;
  readonly profitTotal: client.Counter;
  /** Labelled by kind (get_tasks, execute, recovery, swap, registration, cycle, …) and adapter. */
  readonly errorsTotal: client.Counter<"kind" | "adapter">;
  readonly rpcRequestsTotal: client.Counter<"method">;
  readonly rpcFailuresTotal: client.Counter<"method">;
  readonly rpcDuration: client.Histogram<"method">;
  /** Replaces the live sources read at scrape time. */
  bind(sources: MetricSources): void;
  /** Text exposition, secret-free by construction (no metric carries a secret). */
  render(): Promise<string>;
}

/** Options of {@link createMetrics}. */
export interface MetricsOptions {
  /** Also export prom-client's default process metrics. Default true. */
  defaultMetrics?: boolean;
  /** Static info exported as labels of `keeper_info`. */
  info?: { name: string; operator: string; version?: string };
  sources?: MetricSources;
}

const UNITS = 10_000_000n;

/** Converts 7-decimal integer units to a float of whole tokens (exact for |units| < 2^53). */
export function unitsToFloat(units: bigint): number {
  const neg = units < 0n;
  const a = neg ? -units : units;
  const s = `${a / UNITS}.${(a % UNITS).toString().padStart(7, "0")}`;
  return neg ? -Number(s) : Number(s);
}

/** Creates the metrics on a fresh Registry. */
export function createMetrics(opts: MetricsOptions = {}): KeeperMetrics {
  const registry = new client.Registry();
  let sources: MetricSources = opts.sources ?? {};
  const registers = [registry];

  const cyclesTotal = new client.Counter({
    name: "keeper_cycles_total",
    help: "Number of keeper poll cycles",
    registers,
  });
  const cycleOverrunsTotal = new client.Counter({
    name: "keeper_cycle_overruns_total",
    help: "Cycles that took longer than POLL_INTERVAL",
    registers,
  });
  const cycleDuration = new client.Histogram({
    name: "keeper_cycle_duration_seconds",
    help: "Duration of keeper cycles in seconds",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300],
    registers,
  });
  const lastCycleTimestamp = new client.Gauge({
    name: "keeper_last_cycle_timestamp_seconds",
    help: "Unix time at which the last cycle finished (0 before the first)",
    registers,
  });
  const liquidationsTotal = new client.Counter({
    name: "keeper_liquidations_total",
    help: "Number of successful auction fills, by pool",
    labelNames: ["pool"] as const,
    registers,
  });
  const liquidationAttemptsTotal = new client.Counter({
    name: "keeper_liquidation_attempts_total",
    help: "Liquidation attempts by outcome (filled, lost_race, held, failed) and pool",
    labelNames: ["outcome", "pool"] as const,
    registers,
  });
  const profitTotal = new client.Counter({
    name: "keeper_profit_usdc_total",
    help: "Realized profit returned to the vault by this keeper, in USDC",
    registers,
  });
  const errorsTotal = new client.Counter({
    name: "keeper_errors_total",
    help:
      "Errors by kind (get_tasks, execute, recovery, swap, registration, cycle, ...) and adapter",
    labelNames: ["kind", "adapter"] as const,
    registers,
  });
  const rpcRequestsTotal = new client.Counter({
    name: "keeper_rpc_requests_total",
    help: "Soroban JSON-RPC requests by method",
    labelNames: ["method"] as const,
    registers,
  });
  const rpcFailuresTotal = new client.Counter({
    name: "keeper_rpc_failures_total",
    help:
      "Soroban JSON-RPC requests that failed (transport, HTTP status or JSON-RPC error) by method",
    labelNames: ["method"] as const,
    registers,
  });
  const rpcDuration = new client.Histogram({
    name: "keeper_rpc_duration_seconds",
    help: "Soroban JSON-RPC request latency by method",
    labelNames: ["method"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });

  const gauge = (name: string, help: string, read: () => number) =>
    new client.Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  const units = (v: bigint | null | undefined) => (v == null ? 0 : unitsToFloat(v));
  gauge(
    "keeper_vault_tvl",
    "Vault total USDC (total_usdc / 1e7, 7 decimals)",
    () => units(sources.vaultTotalUsdc?.()),
  );
  gauge(
    "keeper_vault_state_timestamp_seconds",
    "Unix time of the last successful vault state read (0 before the first)",
    () => (sources.vaultReadAt?.()?.getTime() ?? 0) / 1000,
  );
  gauge("keeper_sse_active", "Active SSE connections", () => sources.sseActive?.() ?? 0);
  gauge(
    "keeper_outstanding_draw_usdc",
    "Always 0 since issue 12: vault capital is only lent inside one flash transaction (kept for dashboards)",
    () => units(sources.outstandingDraw?.()),
  );
  gauge(
    "keeper_native_balance_xlm",
    "Native fee asset balance of the keeper account, in XLM",
    () => units(sources.nativeBalance?.()),
  );
  const perPool = (name: string, help: string, read: (c: PositionCounts) => number) =>
    new client.Gauge({
      name,
      help,
      labelNames: ["pool"] as const,
      registers,
      collect() {
        this.reset();
        for (const [pool, c] of sources.positionsByPool?.() ?? []) this.set({ pool }, read(c));
      },
    });
  perPool("keeper_positions_tracked", "Lending-pool positions tracked, by pool", (c) => c.tracked);
  perPool(
    "keeper_positions_underwater",
    "Tracked positions with health factor below 1.0, by pool",
    (c) => c.underwater,
  );
  if (opts.info) {
    const info = new client.Gauge({
      name: "keeper_info",
      help: "Static keeper information (value is always 1)",
      labelNames: ["name", "operator", "version"] as const,
      registers,
    });
    info.set({
      name: opts.info.name,
      operator: opts.info.operator,
      version: opts.info.version ?? "dev",
    }, 1);
  }
  if (opts.defaultMetrics ?? true) {
    client.collectDefaultMetrics({ register: registry });
    // Deno emits no `gc` performance entries: this histogram would be declared but never observed.
    registry.removeSingleMetric("nodejs_gc_duration_seconds");
  }

  return {
    registry,
    cyclesTotal,
    cycleOverrunsTotal,
    cycleDuration,
    lastCycleTimestamp,
    liquidationsTotal,
    liquidationAttemptsTotal,
    profitTotal,
    errorsTotal,
    rpcRequestsTotal,
    rpcFailuresTotal,
    rpcDuration,
    bind(s: MetricSources) {
      sources = s;
    },
    render: () => registry.metrics(),
  };
}

/** Label value for a JSON-RPC method name; anything odd becomes `other` (bounded cardinality). */
export function methodLabel(method: unknown): string {
  return typeof method === "string" && /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(method)
    ? method
    : "other";
}

/**
 * Runs one RPC call and records it: a request, its latency and, when `fn` throws, a failure.
 * For code that calls RPC methods through its own client.
 */
export async function observeRpc<T>(
  metrics: KeeperMetrics,
  method: string,
  fn: () => Promise<T>,
): Promise<T> {
  const label = methodLabel(method);
  const end = metrics.rpcDuration.startTimer({ method: label });
  metrics.rpcRequestsTotal.inc({ method: label });
  try {
    return await fn();
  } catch (e) {
    metrics.rpcFailuresTotal.inc({ method: label });
    throw e;
  } finally {
    end();
  }
}

/**
 * A `fetch` that counts JSON-RPC requests by method (single or batch bodies given as strings).
 * A failure is a transport error, an HTTP status >= 400, or a JSON-RPC `error` member in the
 * response. Non-JSON-RPC requests pass through uncounted.
 */
export function countingFetch(metrics: KeeperMetrics, inner: typeof fetch = fetch): typeof fetch {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const methods = typeof init?.body === "string" ? rpcMethods(init.body) : [];
    if (methods.length === 0) return inner(input, init);
    const start = performance.now();
    for (const m of methods) metrics.rpcRequestsTotal.inc({ method: m });
    const fail = () => {
      for (const m of methods) metrics.rpcFailuresTotal.inc({ method: m });
    };
    const observe = () => {
      const s = (performance.now() - start) / 1000;
      for (const m of methods) metrics.rpcDuration.observe({ method: m }, s);
    };
    let res: Response;
    try {
      res = await inner(input, init);
    } catch (e) {
      observe();
      fail();
      throw e;
    }
    if (res.status >= 400) {
      observe();
      fail();
      return res;
    }
    // Peek at the body for JSON-RPC errors without consuming the caller's copy.
    try {
      const body = JSON.parse(await res.clone().text());
      observe();
      if (Array.isArray(body)) {
        body.forEach((r, i) => {
          if (r && typeof r === "object" && "error" in r) {
            metrics.rpcFailuresTotal.inc({ method: methods[i] ?? "other" });
          }
        });
      } else if (body && typeof body === "object" && "error" in body) {
        fail();
      }
    } catch {
      observe();
      fail();
    }
    return res;
  };
}

function rpcMethods(body: string): string[] {
  if (!body.includes('"method"')) return [];
  try {
    const parsed = JSON.parse(body);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    return list.filter((r) => r && typeof r === "object" && "method" in r)
      .map((r) => methodLabel(r.method));
  } catch {
    return [];
  }
}

type PostFn = (url: string, data?: unknown, config?: unknown) => Promise<{ data?: unknown }>;

/**
 * Counts every JSON-RPC call an `rpc.Server` makes (all its methods go through
 * `httpClient.post(url, {jsonrpc, id, method, params})`, stellar-sdk `rpc/jsonrpc.js`).
 * Returns the same server.
 */
export function instrumentRpcServer(server: rpc.Server, metrics: KeeperMetrics): rpc.Server {
  const http = server.httpClient as unknown as { post: PostFn };
  const post = http.post.bind(http);
  http.post = (url, data, config) => {
    const method = methodLabel((data as { method?: unknown } | undefined)?.method);
    return observeRpc(metrics, method, async () => {
      const res = await post(url, data, config);
      const body = res?.data;
      if (body && typeof body === "object" && "error" in body) {
        // Counted as a failure, then handed back unchanged: the SDK turns it into its own error.
        metrics.rpcFailuresTotal.inc({ method });
      }
      return res;
    });
  };
  return server;
}

/**
 * A `(method, ok, ms)` observer for RPC layers that report each request themselves
 * (e.g. `ChainRpc.onRequest` in `soroban/rpc.ts`).
 */
export function rpcRequestHook(
  metrics: KeeperMetrics,
): (method: string, ok: boolean, ms: number) => void {
  return (method, ok, ms) => {
    const label = methodLabel(method);
    metrics.rpcRequestsTotal.inc({ method: label });
    if (!ok) metrics.rpcFailuresTotal.inc({ method: label });
    metrics.rpcDuration.observe({ method: label }, ms / 1000);
  };
}
