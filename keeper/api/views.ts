/**
 * The JSON shapes of `/api/state` and `/api/performance` (documented in `README.md`). Amounts are
 * decimal strings of 7-decimal integer units, times ISO 8601, health factors finite or null.
 */
import type { Logger, LogLine } from "../log/logger.ts";
import {
  type DashboardState,
  type DepositorRow,
  type KeeperRow,
  type LiquidationRecord,
  listPositions,
  type PendingChangeRow,
  type PolicyRow,
  type Position,
  positionCounts,
  sharePriceUnits,
  type VaultConfigSnapshot,
  type VaultSnapshot,
} from "../state.ts";
import { amount, finite, iso } from "./json.ts";

/** Version of the JSON shapes; bumped only on incompatible changes. */
export const API_VERSION = 1;

/**
 * Static facts about this keeper shown in `/api/state`. Never contains secrets. (Not the
 * registry's `KeeperInfo` record: that one is `@vigil/contracts/clients`'.)
 */
export interface KeeperFacts {
  networkPassphrase: string;
  vaultContract: string;
  registryContract: string;
  /** The pools this keeper liquidates on (LENDING_POOLS), in order; empty = monitor-only. */
  lendingPools: readonly string[];
  /** DRY_RUN: nothing is ever sent. */
  dryRun: boolean;
  usdcContract: string | null;
  pollIntervalSec: number;
}

/** Query options of `/api/state`. */
export interface StateQuery {
  /** Newest event lines to include (0..ring size). Default 50. */
  events: number;
  /** Riskiest positions to include; null = all. Default 50. */
  positions: number | null;
}

/** Query options of `/api/performance`. */
export interface PerformanceQuery {
  /** Newest liquidation records to include; null = all kept. Default 50. */
  liquidations: number | null;
}

/** Builds the `/api/state` body. */
export function stateView(
  s: DashboardState,
  log: Logger,
  info: KeeperFacts,
  q: StateQuery,
  now = new Date(),
) {
  const all = listPositions(s);
  const shown = q.positions === null ? all : all.slice(0, q.positions);
  const counts = positionCounts(s);
  const buffered = log.recent();
  const events = buffered.slice(buffered.length - Math.min(q.events, buffered.length));
  return {
    api_version: API_VERSION,
    generated_at: now.toISOString(),
    keeper: {
      name: s.self.name,
      address: s.self.address,
      mode: s.self.mode,
      started_at: s.self.startedAt.toISOString(),
      uptime_seconds: Math.max(0, Math.floor((now.getTime() - s.self.startedAt.getTime()) / 1000)),
      network_passphrase: info.networkPassphrase,
      vault_contract: info.vaultContract,
      registry_contract: info.registryContract,
      // The first pool, for clients of the one-pool shape; `lending_pools` lists them all.
      lending_pool: info.lendingPools[0] ?? null,
      lending_pools: info.lendingPools,
      dry_run: info.dryRun,
      usdc_contract: info.usdcContract,
      poll_interval_seconds: info.pollIntervalSec,
      latest_ledger: s.latestLedger,
      last_cycle: s.stats.lastCycle && {
        number: s.stats.lastCycle.number,
        started_at: s.stats.lastCycle.startedAt.toISOString(),
        duration_ms: Math.round(s.stats.lastCycle.durationMs),
        errors: s.stats.lastCycle.errors,
      },
    },
    keepers: s.keepers.map((k) => keeperView(k, s.self.address)),
    keepers_total: s.keepersTotal,
    keepers_read_at: iso(s.keepersReadAt),
    positions: shown.map(positionView),
    positions_summary: {
      tracked: counts.tracked,
      with_debt: counts.withDebt,
      underwater: counts.underwater,
      shown: shown.length,
      truncated: shown.length < all.length,
    },
    vault: vaultView(s.vault),
    vault_config: vaultConfigView(s.vaultConfig),
    pending_changes: pendingView(s),
    dry_run: s.dryRun.enabled
      ? {
        actions: s.dryRun.actions.slice().reverse().map((a) => ({
          time: a.time.toISOString(),
          call: a.call,
          pool: a.pool,
          inclusion_fee: a.inclusionFee,
          resource_fee: a.resourceFee,
        })),
      }
      : null,
    events: events.map(eventView),
    events_summary: {
      buffered: buffered.length,
      shown: events.length,
      truncated: events.length < buffered.length,
    },
  };
}

/** Builds the `/api/performance` body. */
export function performanceView(
  s: DashboardState,
  q: PerformanceQuery = { liquidations: null },
  now = new Date(),
) {
  const st = s.stats;
  const all = s.liquidations;
  const kept = q.liquidations === null
    ? all
    : all.slice(all.length - Math.min(q.liquidations, all.length));
  return {
    api_version: API_VERSION,
    generated_at: now.toISOString(),
    vault: vaultView(s.vault),
    vault_config: vaultConfigView(s.vaultConfig),
    share_price_series: s.sharePrice.map((p) => ({
      time: p.time.toISOString(),
      share_price: amount(sharePriceUnits(p.totalUsdc - p.lockedProfit, p.totalShares)),
      total_usdc: amount(p.totalUsdc),
      total_shares: amount(p.totalShares),
      locked_profit: amount(p.lockedProfit),
      ledger: p.ledger,
    })),
    depositors: s.depositors.map(depositorView),
    keeper_stats: {
      name: s.self.name,
      address: s.self.address,
      cycles: st.cycles,
      fills: st.fills,
      lost_races: st.lostRaces,
      held: st.held,
      failed: st.failed,
      total_drew: amount(st.totalDrew),
      total_proceeds: amount(st.totalProceeds),
      total_profit: amount(st.totalProfit),
      avg_response_time_ms: st.fills > 0 ? Math.round(st.responseTimeSumMs / st.fills) : null,
      errors: st.errors,
      outstanding_draw: amount(st.outstandingDraw),
      native_balance: amount(st.nativeBalance),
      last_liquidation_at: iso(st.lastLiquidationAt),
    },
    keepers: s.keepers.map((k) => keeperView(k, s.self.address)),
    // Newest first: what a "recent fills" table shows.
    liquidations: [...kept].reverse().map(liquidationView),
    liquidations_summary: {
      kept: all.length,
      shown: kept.length,
      truncated: kept.length < all.length,
    },
  };
}

/**
 * One event-log line as shown in `/api/state` and, with `?format=json`, as SSE `data`: `text` is
 * the detailed line (the default SSE `data`), `plain` the same event as a sentence for people.
 */
export function eventView(l: LogLine) {
  return { id: l.id, ts: l.ts, level: l.level, text: l.text, plain: l.plain };
}

function keeperView(k: KeeperRow, self: string) {
  return {
    address: k.address,
    name: k.name,
    is_self: k.address === self,
    stake: amount(k.stake),
    active: k.active,
    has_active_draw: k.hasActiveDraw,
    draw_marked_at: iso(k.drawMarkedAt),
    registered_at: iso(k.registeredAt),
    total_executions: amount(k.totalExecutions),
    successful_fills: amount(k.successfulFills),
    total_profit: amount(k.totalProfit),
    avg_response_time_ms: finite(k.avgResponseTimeMs),
  };
}

function positionView(p: Position) {
  const hf = finite(p.healthFactor);
  return {
    pool: p.pool,
    user: p.user,
    health_factor: hf,
    underwater: hf !== null && hf < 1,
    collateral_value: amount(p.collateralValue),
    liabilities_value: amount(p.liabilitiesValue),
    auction: p.auction && { start_block: p.auction.startBlock, percent: p.auction.percent },
    updated_at: p.updatedAt.toISOString(),
  };
}

/** The vault block shared by both endpoints. */
export function vaultView(v: VaultSnapshot | null) {
  if (!v) return null;
  return {
    total_usdc: amount(v.totalUsdc),
    total_shares: amount(v.totalShares),
    total_profit: amount(v.totalProfit),
    active_liq: amount(v.activeLiq),
    idle: amount(v.totalUsdc - v.activeLiq),
    locked_profit: amount(v.lockedProfit),
    unlock_end: iso(v.unlockEnd),
    // What a share is worth: the profit still locked is not in it (issue 20).
    share_price: amount(sharePriceUnits(v.totalUsdc - v.lockedProfit, v.totalShares)),
    ledger: v.ledger,
    read_at: v.readAt.toISOString(),
  };
}

function vaultConfigView(c: VaultConfigSnapshot | null) {
  if (!c) return null;
  return {
    deposit_cap: amount(c.depositCap),
    withdraw_cooldown_seconds: c.withdrawCooldownSec,
    max_draw_per_keeper: amount(c.maxDrawPerKeeper),
    min_fill_profit: amount(c.minFillProfit),
    policy_delay_seconds: c.policyDelaySec,
    profit_unlock_seconds: c.profitUnlockSec,
  };
}

function policyView(p: PolicyRow) {
  return {
    executors: p.executors,
    max_slippage_bps: p.maxSlippageBps,
    pools: p.pools,
    routers: p.routers,
    tokens: p.tokens,
  };
}

/** Queued admin changes: null when none waits (or not read yet). */
function pendingView(s: DashboardState) {
  const pp: PendingChangeRow<PolicyRow> | null | undefined = s.pendingPolicy;
  const pc: PendingChangeRow<VaultConfigSnapshot> | null | undefined = s.pendingConfig;
  return {
    flash_policy: pp
      ? {
        applies_at: pp.appliesAt.toISOString(),
        policy: policyView(pp.value),
        warning: pp.warning,
      }
      : null,
    config: pc
      ? { applies_at: pc.appliesAt.toISOString(), config: vaultConfigView(pc.value) }
      : null,
  };
}

function depositorView(d: DepositorRow) {
  return {
    address: d.address,
    shares: amount(d.shares),
    usdc_value: amount(d.usdcValue),
    read_at: d.readAt.toISOString(),
  };
}

function liquidationView(r: LiquidationRecord) {
  return {
    id: r.id,
    adapter: r.adapter,
    pool: r.pool,
    user: r.user,
    outcome: r.outcome,
    drew: amount(r.drew),
    proceeds: amount(r.proceeds),
    profit: amount(r.profit),
    response_time_ms: Math.round(r.responseTimeMs),
    tx_hash: r.txHash,
    ledger: r.ledger,
    auction_block: r.auctionBlock ?? null,
    ledgers_after_first_profitable: r.ledgersAfterFirstProfitable ?? null,
    time: r.time.toISOString(),
    keeper: r.keeper,
    keeper_name: r.keeperName,
    note: r.note ?? null,
  };
}
