/**
 * The keeper's shared context: configuration, logger, dashboard state, metrics and SSE hub, plus
 * recorders that keep the three views of an event (state, metrics, log line) consistent. The
 * chain part (registration, adapters, cycle, recovery) receives this object through the hooks of
 * `runKeeper` (`keeper/daemon.ts`).
 */
import type { Config } from "./config.ts";
import { type ApiContext, SseHub, type SseOptions } from "./api/server.ts";
import {
  type LogFields,
  type LogFormat,
  Logger,
  type LoggerOptions,
  peopleAmount,
  shortAddress,
} from "./log/logger.ts";
import { createMetrics, type KeeperMetrics, unitsToFloat } from "./metrics.ts";
import {
  createState,
  type DashboardState,
  isFill,
  type LiquidationInput,
  type LiquidationRecord,
  positionCountsByPool,
  recordCycle,
  recordDryRun,
  recordError,
  recordLiquidation,
} from "./state.ts";
import type { DryRunCall } from "@vigil/soroban/errors";
import { NO_NOTIFIER, type Notifier, webhookNotifier } from "./notify/webhook.ts";

/** Everything the keeper's parts share. */
export interface KeeperContext extends ApiContext {
  readonly config: Config;
  /** Aborted when shutdown begins: long operations should stop at their next safe point. */
  readonly signal: AbortSignal;
  /** Records a liquidation attempt in state, metrics and the log; returns the stored record. */
  recordLiquidation(input: LiquidationInput): LiquidationRecord;
  /**
   * Records a finished cycle in state and metrics (duration histogram, overruns). A cycle longer
   * than POLL_INTERVAL is counted as an overrun; it is a warning only when the time beyond
   * `liquidatingMs` (the wall time covered by liquidation tasks, which run side by side: waiting
   * for an auction's profitable block or a backup's turn, then the flash — by design up to about
   * one interval each) exceeds POLL_INTERVAL.
   */
  recordCycle(
    c: { startedAt: Date; durationMs: number; errors: number; liquidatingMs?: number },
  ): void;
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
  /** DRY_RUN: records (state and log, `dry-run: …`) a transaction that was not sent. */
  recordDryRun(action: DryRunCall, pool?: string): void;
  /** Operator notifications (NOTIFY_WEBHOOK_URL; a no-op without it). */
  readonly notify: Notifier;
}

/** Options of {@link createKeeperContext}. */
export interface ContextOptions {
  /**
   * Logger to use; default one built from the config's LOG_LEVEL and LOG_FORMAT writing to
   * stderr.
   */
  log?: Logger;
  logOptions?: LoggerOptions;
  sse?: SseOptions;
  /** Export default process metrics. Default true. */
  defaultMetrics?: boolean;
  /** Aborts with the keeper (shutdown). */
  signal?: AbortSignal;
  startedAt?: Date;
  /** Notifier to use; default from NOTIFY_WEBHOOK_URL (none without it). */
  notifier?: Notifier;
}

/** Formats 7-decimal units as a decimal string with 7 places (e.g. `20.2154468`). */
export function formatUnits(units: bigint): string {
  const neg = units < 0n;
  const a = neg ? -units : units;
  return `${neg ? "-" : ""}${a / 10_000_000n}.${(a % 10_000_000n).toString().padStart(7, "0")}`;
}

/**
 * The stderr format: LOG_FORMAT when set, else text on a terminal (a person is reading) and JSON
 * otherwise (a pipe: a log collector, or a parent process parsing the lines).
 */
export function logFormat(
  configured: LogFormat | null,
  isTerminal: () => boolean = () => Deno.stderr.isTerminal(),
): LogFormat {
  if (configured) return configured;
  try {
    return isTerminal() ? "text" : "json";
  } catch {
    return "json";
  }
}

/**
 * The plain sentence of a liquidation attempt for people (the log's `plain`): who, whom, where,
 * and what it earned, amounts in USDC with 2 decimals, addresses shortened.
 */
export function liquidationSentence(rec: LiquidationRecord): string {
  const keeper = rec.keeperName;
  const who = rec.user ? shortAddress(rec.user) : "a borrower";
  const where = rec.pool ? ` on pool ${shortAddress(rec.pool)}` : "";
  switch (rec.outcome) {
    case "filled":
    case "held":
      return `${keeper} filled ${who}${where}: ${peopleAmount(rec.profit, true)} USDC in 1 flash${
        rec.outcome === "held" ? ", collateral held" : ""
      }${rec.note ? ` (${rec.note})` : ""}`;
    case "lost_race":
      return `${keeper} lost the race for ${who}${where} to another keeper (our flash reverted, nothing lent)`;
    case "failed":
      return `${keeper} could not liquidate ${who}${where}${rec.note ? `: ${rec.note}` : ""}`;
  }
}

/** Builds the context for a validated configuration. */
export function createKeeperContext(config: Config, opts: ContextOptions = {}): KeeperContext {
  const log = opts.log ?? new Logger({
    level: config.logLevel,
    format: logFormat(config.logFormat),
    base: { keeper: config.keeperName, operator: config.operator },
    ...opts.logOptions,
  });
  const state: DashboardState = createState({
    name: config.keeperName,
    address: config.operator,
    mode: config.lendingPools.length > 0 ? "liquidation" : "monitor",
    dryRun: config.dryRun,
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
    positionsByPool: () => positionCountsByPool(state),
  });
  const signal = opts.signal ?? new AbortController().signal;
  const notify = opts.notifier ??
    (config.notifyWebhookUrl
      ? webhookNotifier(config.notifyWebhookUrl, {
        name: config.keeperName,
        onError: (msg) => log.warn(msg, { kind: "notify" }),
      })
      : NO_NOTIFIER);

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
      lendingPools: config.lendingPools,
      dryRun: config.dryRun,
      usdcContract: config.usdcContract,
      pollIntervalSec: config.pollIntervalSec,
    },
    corsOrigins: config.corsOrigins,
    notify,

    recordLiquidation(input) {
      const rec = recordLiquidation(state, input);
      const pool = rec.pool ?? "";
      metrics.liquidationAttemptsTotal.inc({ outcome: rec.outcome, pool });
      if (isFill(rec.outcome)) metrics.liquidationsTotal.inc({ pool });
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
        ledger: rec.ledger,
        ledgers_after_first_profitable: rec.ledgersAfterFirstProfitable,
        note: rec.note,
      };
      for (const k of Object.keys(fields)) if (fields[k] == null) delete fields[k];
      fields.plain = liquidationSentence(rec);
      const who = rec.user ?? "?";
      const money = `flash ${formatUnits(rec.drew)} returned ${formatUnits(rec.proceeds)} profit ${
        formatUnits(rec.profit)
      } USDC`;
      switch (rec.outcome) {
        case "filled":
          log.info(`liquidation filled: ${who} ${money}`, fields);
          notify.notify({
            kind: "fill",
            text: `liquidation filled on pool ${rec.pool ?? "?"}: ${who}, ${money}${
              rec.txHash ? ` (tx ${rec.txHash})` : ""
            }`,
          });
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
          notify.notify({
            kind: "failed_flash",
            text: `liquidation failed on pool ${rec.pool ?? "?"}: ${who}${
              rec.note ? `: ${rec.note}` : ""
            }`,
          });
          break;
      }
      return rec;
    },

    recordCycle(c) {
      recordCycle(state, c);
      metrics.cyclesTotal.inc();
      metrics.cycleDuration.observe(c.durationMs / 1000);
      metrics.lastCycleTimestamp.set((c.startedAt.getTime() + c.durationMs) / 1000);
      const intervalMs = config.pollIntervalSec * 1000;
      if (c.durationMs > intervalMs) {
        metrics.cycleOverrunsTotal.inc();
        const liquidatingMs = c.liquidatingMs ?? 0;
        const fields = {
          duration_ms: Math.round(c.durationMs),
          liquidating_ms: Math.round(liquidatingMs),
          poll_interval_s: config.pollIntervalSec,
        };
        // Waiting for an auction's profitable block is the keeper doing its job, not falling
        // behind: only the rest of the cycle's time can mean the keeper is too slow.
        if (c.durationMs - liquidatingMs > intervalMs) {
          log.warn("cycle took longer than POLL_INTERVAL", fields);
        } else {
          log.debug("cycle took longer than POLL_INTERVAL while liquidating", fields);
        }
      }
    },

    recordDryRun(action, pool) {
      recordDryRun(state, {
        time: new Date(),
        call: action.call,
        pool: pool ?? null,
        inclusionFee: action.inclusionFee ?? null,
        resourceFee: action.resourceFee ?? null,
      });
      log.info(`dry-run: would send ${action.call}`, {
        pool,
        inclusion_fee: action.inclusionFee,
        resource_fee: action.resourceFee,
      });
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
