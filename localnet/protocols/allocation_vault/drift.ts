/**
 * Client-side drift maths for a DeFindex-style allocation vault: what a keeper adapter needs to
 * decide whether to rebalance and with which `Unwind`/`Invest` instructions. Pure functions over
 * the value `fetch_total_managed_funds()` returns (decoded by `contract.Client`).
 *
 * DeFindex keeps no target weights on-chain. The default targets follow Nectar's adapter: equal
 * weights across non-paused strategies (paused strategies target 0); explicit targets (bps per
 * strategy) can be given instead. Weights are measured against the asset's `total_amount`
 * (idle + invested), so idle funds count as under-allocation and get invested.
 *
 * @module
 */

/** One strategy's allocation, as `fetch_total_managed_funds` returns it. */
export interface StrategyAllocation {
  amount: bigint;
  paused: boolean;
  strategy_address: string;
}

/** One asset's managed funds, as `fetch_total_managed_funds` returns it. */
export interface CurrentAssetInvestmentAllocation {
  asset: string;
  idle_amount: bigint;
  invested_amount: bigint;
  strategy_allocations: StrategyAllocation[];
  total_amount: bigint;
}

/** Target weights in bps by strategy address (should sum to 10000 for the asset). */
export type TargetWeights = Record<string, number>;

/** Drift of one strategy. */
export interface StrategyDrift {
  strategy: string;
  paused: boolean;
  amount: bigint;
  /** Current weight in bps of the asset's total (floor). */
  currentBps: number;
  targetBps: number;
  /** `floor(total * targetBps / 10000)`. */
  targetAmount: bigint;
  /** `targetAmount - amount`: positive = invest, negative = unwind. */
  delta: bigint;
}

/** Drift of one asset. */
export interface AssetDrift {
  asset: string;
  total: bigint;
  idle: bigint;
  /** `max |current - target|` over the strategies, in bps (floor). 0 when the asset is empty. */
  driftBps: number;
  strategies: StrategyDrift[];
}

/** A rebalance instruction in `contract.Client` form (`Instruction` union). */
export type Instruction =
  | { tag: "Unwind"; values: [string, bigint] }
  | { tag: "Invest"; values: [string, bigint] };

/** Equal targets across non-paused strategies (remainder bps to the first ones); paused get 0. */
export function equalTargets(alloc: CurrentAssetInvestmentAllocation): TargetWeights {
  const active = alloc.strategy_allocations.filter((s) => !s.paused);
  const out: TargetWeights = {};
  for (const s of alloc.strategy_allocations) out[s.strategy_address] = 0;
  if (active.length === 0) return out;
  const base = Math.floor(10_000 / active.length);
  let rest = 10_000 - base * active.length;
  for (const s of active) {
    out[s.strategy_address] = base + (rest > 0 ? 1 : 0);
    if (rest > 0) rest--;
  }
  return out;
}

/** Computes the drift of one asset against `targets` (default {@link equalTargets}). */
export function computeDrift(
  alloc: CurrentAssetInvestmentAllocation,
  targets: TargetWeights = equalTargets(alloc),
): AssetDrift {
  const total = alloc.total_amount;
  const strategies = alloc.strategy_allocations.map((s): StrategyDrift => {
    const targetBps = targets[s.strategy_address] ?? 0;
    const targetAmount = (total * BigInt(targetBps)) / 10_000n;
    const currentBps = total > 0n ? Number((s.amount * 10_000n) / total) : 0;
    return {
      strategy: s.strategy_address,
      paused: s.paused,
      amount: s.amount,
      currentBps,
      targetBps,
      targetAmount,
      delta: targetAmount - s.amount,
    };
  });
  let driftBps = 0;
  if (total > 0n) {
    for (const s of strategies) {
      // Exact |amount/total - target| in bps, floored.
      const diff = s.amount * 10_000n - BigInt(s.targetBps) * total;
      const bps = Number((diff < 0n ? -diff : diff) / total);
      if (bps > driftBps) driftBps = bps;
    }
  }
  return { asset: alloc.asset, total, idle: alloc.idle_amount, driftBps, strategies };
}

/** The spec's rule: act when drift exceeds ALLOCATION_DRIFT_BPS (strictly). */
export function needsRebalance(drift: AssetDrift, thresholdBps: number): boolean {
  return drift.driftBps > thresholdBps;
}

/**
 * Instructions that move the asset to its targets: `Unwind` for over-allocated strategies first,
 * then `Invest` for under-allocated non-paused ones, scaled down pro-rata when idle + unwound
 * funds do not cover every investment. Deltas at or below `dust` (default 100000 = 0.01 token)
 * are ignored, as Nectar's adapter does.
 */
export function planRebalance(drift: AssetDrift, dust = 100_000n): Instruction[] {
  const unwinds: Instruction[] = [];
  let available = drift.idle;
  for (const s of drift.strategies) {
    if (s.delta < -dust) {
      unwinds.push({ tag: "Unwind", values: [s.strategy, -s.delta] });
      available += -s.delta;
    }
  }
  const wants = drift.strategies.filter((s) => !s.paused && s.delta > dust);
  const need = wants.reduce((t, s) => t + s.delta, 0n);
  const invests: Instruction[] = [];
  for (const s of wants) {
    const amount = need <= available ? s.delta : (s.delta * available) / need;
    if (amount > 0n) invests.push({ tag: "Invest", values: [s.strategy, amount] });
  }
  return [...unwinds, ...invests];
}
