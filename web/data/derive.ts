/**
 * Figures derived from the chain history and the keeper API for the pages: the share-price
 * series (chain first, keeper API as a fallback), liquidation rows (on-chain records,
 * enriched with the keeper's notes where the transaction matches), per-depositor series.
 * Pure functions: unit-testable without a network.
 *
 * @module
 */
import type { ApiLiquidation, ApiPerformance } from "./api.ts";
import type { ChainLiquidation, PoolFill, StatePoint } from "./history.ts";
import type { PricePoint } from "./returns.ts";
import { sharePrice } from "./format.ts";

/** Where a series came from. */
export type SeriesSource = "chain" | "keeper" | "none";

/** The share-price series of the vault. */
export interface PriceSeries {
  points: PricePoint[];
  source: SeriesSource;
}

/** Share price points (unlocked capital per share) from the vault's books after each event. */
export function pricePointsOf(states: StatePoint[]): PricePoint[] {
  return states.flatMap((s) => {
    const p = sharePrice(s.total_usdc - s.locked_profit, s.total_shares);
    return p === null ? [] : [{ t: s.time, price: p }];
  });
}

/**
 * The share-price series: rebuilt from on-chain events when there are at least two points,
 * else the keeper API's recorded series, else none.
 */
export function priceSeries(
  chainStates: StatePoint[] | null,
  perf: ApiPerformance | null,
): PriceSeries {
  const chain = chainStates ? pricePointsOf(chainStates) : [];
  if (chain.length >= 2) return { points: chain, source: "chain" };
  const api = (perf?.sharePriceSeries ?? []).flatMap((p) => {
    const price = sharePrice(p.total_usdc - p.locked_profit, p.total_shares);
    const t = Date.parse(p.time);
    return price === null || Number.isNaN(t) ? [] : [{ t, price }];
  });
  if (api.length >= 2) return { points: api, source: "keeper" };
  if (chain.length > 0) return { points: chain, source: "chain" };
  return { points: api, source: api.length ? "keeper" : "none" };
}

/** Keeps the points inside the last `days` days (plus the one just before, as the start). */
export function withinDays(points: PricePoint[], days: number | null, nowMs: number): PricePoint[] {
  if (days === null) return points;
  const from = nowMs - days * 86_400_000;
  const idx = points.findIndex((p) => p.t >= from);
  if (idx === -1) return points.slice(-1);
  return points.slice(Math.max(0, idx - 1)).map((p, i) =>
    i === 0 && p.t < from ? { ...p, t: from } : p
  );
}

/** A liquidation row for the tables. */
export interface LiquidationRow extends ChainLiquidation {
  /**
   * The liquidated borrower: from the pool's `fill_auction` event of the same transaction, else
   * from the keeper API when it recorded this transaction.
   */
  user: string | null;
  /** The lending pool, from the same sources. */
  pool: string | null;
  keeperName: string | null;
}

/**
 * On-chain liquidations (newest first), with the borrower and pool from the pool's own event of
 * the same transaction (`fillOf`), else from the keeper API's record of it.
 */
export function liquidationRows(
  chain: ChainLiquidation[],
  api: ApiLiquidation[] | null,
  names: Map<string, string>,
  fillOf: (txHash: string) => PoolFill | null = () => null,
): LiquidationRow[] {
  const byTx = new Map<string, ApiLiquidation>();
  for (const l of api ?? []) if (l.tx_hash) byTx.set(l.tx_hash, l);
  return chain.map((c) => {
    const a = byTx.get(c.txHash);
    const f = fillOf(c.txHash);
    return {
      ...c,
      // The keeper measured the response time it passed to return_proceeds; the chain's
      // record is authoritative, the API's only fills a gap.
      responseTimeMs: c.responseTimeMs ?? a?.response_time_ms ?? null,
      user: f?.user ?? a?.user ?? null,
      pool: f?.pool ?? a?.pool ?? null,
      keeperName: names.get(c.keeper) ?? a?.keeper_name ?? null,
    };
  });
}

/** Summary of liquidation rows: count, profit, average and largest, null when empty. */
export function liquidationSummary(rows: { profit: bigint; drew: bigint }[]) {
  if (rows.length === 0) {
    return {
      count: 0,
      profit: 0n,
      avgProfit: null as bigint | null,
      largest: null as bigint | null,
    };
  }
  const profit = rows.reduce((s, r) => s + r.profit, 0n);
  const largest = rows.reduce((m, r) => (r.drew > m ? r.drew : m), 0n);
  return { count: rows.length, profit, avgProfit: profit / BigInt(rows.length), largest };
}

/** One keeper's attempts by outcome, as that keeper recorded them (its API's history). */
export interface AttemptSummary {
  attempts: number;
  filled: number;
  lostRaces: number;
  failed: number;
}

/** Counts a keeper's recorded attempts by outcome (`held` counts as filled, as the keeper does). */
export function attemptSummary(list: readonly ApiLiquidation[]): AttemptSummary {
  const out = { attempts: list.length, filled: 0, lostRaces: 0, failed: 0 };
  for (const l of list) {
    if (l.outcome === "filled" || l.outcome === "held") out.filled++;
    else if (l.outcome === "lost_race") out.lostRaces++;
    else out.failed++;
  }
  return out;
}

/** Plain words for a keeper's attempt outcome. */
export function outcomeText(outcome: string | null): string {
  switch (outcome) {
    case "filled":
    case "held":
      return "filled";
    case "lost_race":
      return "lost the race (another keeper filled first; nothing was lent)";
    case "failed":
      return "failed (nothing was lent)";
    default:
      return outcome ?? "—";
  }
}
