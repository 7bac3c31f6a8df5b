/**
 * Health factors with Blend's math (the Blend SDK's `PositionsEstimate`: effective collateral
 * over effective liabilities, priced by the pool's oracle) and the spec's priority bands.
 *
 * @module
 */
import { type Positions, PositionsEstimate } from "@blend-capital/blend-sdk";
import type { PoolState } from "./pool_state.ts";

/** A position's health. */
export interface Health {
  /** C_eff / L_eff; null when the position has no liabilities; NaN when a leg is unpriced. */
  hf: number | null;
  /** Effective collateral and liabilities, oracle units as floats. */
  collateral: number;
  liabilities: number;
}

/** Health factor of `positions` in `state` (the same formula as Blend's auctioneer bot). */
export function healthOf(state: PoolState, positions: Positions): Health {
  if (positions.liabilities.size === 0 && positions.collateral.size === 0) {
    return { hf: null, collateral: 0, liabilities: 0 };
  }
  let est: PositionsEstimate;
  try {
    est = PositionsEstimate.build(state.pool, state.oracle, positions);
  } catch {
    return { hf: Number.NaN, collateral: 0, liabilities: 0 };
  }
  const c = est.totalEffectiveCollateral;
  const l = est.totalEffectiveLiabilities;
  if (!(l > 0)) return { hf: null, collateral: c, liabilities: l };
  return { hf: c / l, collateral: c, liabilities: l };
}

/** The spec's priority bands: hf < 0.5 → 10, < 0.8 → 7, < 0.95 → 4, otherwise 1. */
export function priorityFor(hf: number): number {
  if (hf < 0.5) return 10;
  if (hf < 0.8) return 7;
  if (hf < 0.95) return 4;
  return 1;
}
