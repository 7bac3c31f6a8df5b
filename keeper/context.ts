/**
 * The keeper's shared context: configuration, logger, dashboard state, metrics and SSE hub, plus
 * recorders that keep the three views of an event (state, metrics, log line) consistent. The
 * chain part (registration, adapters, cycle, recovery) receives this object through the hooks of
 * `runKeeper` (`keeper/daemon.ts`).
 */
import type { Config } from "./config.ts";
import { type ApiContext, SseHub, type SseOptions } from "./api/server.ts";
import { type LogFields, Logger, type LoggerOptions } from "./log/logger.ts";
import { createMetrics, type KeeperMetrics, unitsToFloat } from "./metrics.ts";
import {
  createState,
  type DashboardState,
  isFill,
  type LiquidationInput,
  type LiquidationRecord,
  positionCounts,
  recordCycle,
  recordError,
  recordLiquidation,
} from "./state.ts";

/** Everything the keeper's parts share. */
export interface KeeperContext extends ApiContext {
  readonly config: Config;
  /** Aborted when shutdown begins: long operations should stop at their next safe point. */
  readonly signal: AbortSignal;
  /** Records a liquidation attempt in state, metrics and the log; returns the stored record. */
  recordLiquidation(input: LiquidationInput): LiquidationRecord;
  /** Records a finished cycle in state and metrics (duration histogram, overruns). */
  recordCycle(c: { startedAt: Date; durationMs: number; errors: number }): void;
  /**
   * Records an error: `keeper_errors_total{kind,adapter}`, the state's error count, and a log line
   * (`warn` unless `level` says otherwise). Kinds used by the keeper: get_tasks, execute, recovery,
   * swap, registration, refresh, cycle, keep_alive, auth_refused.
   */
  recordError(
    kind: string,
    err: unknown,
    opts?: { adapter?: string; level?: "warn" | "error"; msg?: string; fields?: LogFields },
  ): void;
}

/** Options of {@link createKeeperContext}. */
export interface ContextOptions {
  /** Logger to use; default one built from the config's LOG_LEVEL writing JSON to stderr. */
  log?: Logger;
  logOptions?: LoggerOptions;
  sse?: SseOptions;
  /** Export default process metrics. Default true. */
  defaultMetrics?: boolean;
  /** Aborts with the keeper (shutdown). */
  signal?: AbortSignal;
  startedAt?: Date;
}

/** Formats 7-decimal units as a decimal string with 7 places (e.g. `20.2154468`). */
export function formatUnits(units: bigint): string {
  const neg = units < 0n;
  const a = neg ? -units : units;
  return `${neg ? "-" : ""}${a / 10_000_000n}.${(a % 10_000_000n).toString().padStart(7, "0")}`;
}

/** Builds the context for a validated configuration. */
export function createKeeperContext(config: Config, opts: ContextOptions = {}): KeeperContext {
  const log = opts.log ?? new Logger({
    level: config.logLevel,
    base: { keeper: config.keeperName, operator: config.operator },
    ...opts.logOptions,
  });
  const state: DashboardState = createState({
    name: config.keeperName,
    address: config.operator,
    mode: config.lendingPool ? "liquidation" : "monitor",
    startedAt: opts.startedAt,
  });
  const metrics: KeeperMetrics = createMetrics({
    defaultMetrics: opts.defaultMetrics ?? true,
    info: { name: config.keeperName, operator: config.operator },
  });
  const sse = new SseHub(log, opts.sse);
  metrics.bind({
    vaultTotalUsdc: () => state.vault?.totalUsdc ?? null,
    vaultReadAt: () => state.vault?.readAt ?? null,
    outstandingDraw: () => state.stats.outstandingDraw,
    nativeBalance: () => state.stats.nativeBalance,
    sseActive: () => sse.active,
    positions: () => positionCounts(state),
  });
  const signal = opts.signal ?? new AbortController().signal;

  return {
    config,
    log,
    state,
    metrics,
    sse,
    signal,
    info: {
      networkPassphrase: config.networkPassphrase,
      vaultContract: config.vaultContract,
      registryContract: config.registryContract,
      lendingPool: config.lendingPool,
      usdcContract: config.usdcContract,
      pollIntervalSec: config.pollIntervalSec,
    },
    corsOrigins: config.corsOrigins,

    recordLiquidation(input) {
      const rec = recordLiquidation(state, input);
      metrics.liquidationAttemptsTotal.inc({ outcome: rec.outcome });
      if (isFill(rec.outcome)) metrics.liquidationsTotal.inc();
      if (rec.profit > 0n) {
        // Set from the exact bigint total: summing floats drifts (2908.7620789000002). The reset
        // and the inc run in one synchronous step, so no scrape ever sees the counter go down.
        metrics.profitTotal.reset();
        metrics.profitTotal.inc(unitsToFloat(state.stats.totalProfit));
      }
      const fields: LogFields = {
        adapter: rec.adapter,
        pool: rec.pool,
        user: rec.user,
        outcome: rec.outcome,
        drew: rec.drew,
        proceeds: rec.proceeds,
        profit: rec.profit,
        response_time_ms: rec.responseTimeMs,
        tx_hash: rec.txHash,
        note: rec.note,
      };
      for (const k of Object.keys(fields)) if (fields[k] == null) delete fields[k];
      const who = rec.user ?? "?";
      const money = `flash ${formatUnits(rec.drew)} returned ${formatUnits(rec.proceeds)} profit ${
        formatUnits(rec.profit)
      } USDC`;
      switch (rec.outcome) {
        case "filled":
          log.info(`liquidation filled: ${who} ${money}`, fields);
          break;
        case "held":
          log.warn(`liquidation filled, collateral held: ${who} ${money}`, fields);
          break;
        case "lost_race":
          log.info(
            `auction already filled by another keeper: ${who}, our flash reverted (nothing lent)`,
            fields,
          );
          break;
        case "failed":
          log.warn(`liquidation failed: ${who}`, fields);
          break;
      }
      return rec;
    },

    recordCycle(c) {
      recordCycle(state, c);
      metrics.cyclesTotal.inc();
      metrics.cycleDuration.observe(c.durationMs / 1000);
      metrics.lastCycleTimestamp.set((c.startedAt.getTime() + c.durationMs) / 1000);
      if (c.durationMs > config.pollIntervalSec * 1000) {
        metrics.cycleOverrunsTotal.inc();
        log.warn("cycle took longer than POLL_INTERVAL", {
          duration_ms: Math.round(c.durationMs),
          poll_interval_s: config.pollIntervalSec,
        });
      }
    },

    recordError(kind, err, o = {}) {
      metrics.errorsTotal.inc({ kind, adapter: o.adapter ?? "" });
      recordError(state);
      const fields: LogFields = {
        kind,
        ...(o.adapter ? { adapter: o.adapter } : {}),
        ...o.fields,
        err,
      };
      const msg = o.msg ?? `${kind} error`;
      if (o.level === "error") log.error(msg, fields);
      else log.warn(msg, fields);
    },
  };
}
