/**
 * Step 4 of a liquidation, plan: the swap legs that convert a non-USDC lot inside the flash
 * (quoted before the wait), the Blend `submit` requests, the liquidator's `LiquidationPlan` and
 * the authorization shape the keeper's signature may cover.
 *
 * @module
 */
import { RequestType } from "@blend-capital/blend-sdk";
import type { xdr } from "@stellar/stellar-sdk";
import type { AuthShape } from "@vigil/soroban/auth_guard";
import { describeError, ErrNoRoute, ErrSlippageExceeded } from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { BuyLeg, LiquidationPlan, Request } from "@vigil/contracts/clients/liquidator";
import { liquidationPlanScVal, requestScVal } from "@vigil/contracts/clients/rpc";
import type { PlannedLeg } from "../../dex/swap_client.ts";
import type { SkipReason } from "../outcome.ts";
import { type AuctionValue, lotAmounts } from "./auction.ts";
import type { ExecuteDeps } from "./execute_deps.ts";
import { liquidationAuth } from "./flash_auth.ts";
import type { PoolState } from "./pool_state.ts";

/** "Withdraw everything": the pool caps a withdrawal at the position (as Blend does). */
const WITHDRAW_ALL = 1n << 62n;

/** The names of the swap planner's errors that skip a liquidation. */
export type SwapErrorName = "ErrSlippageExceeded" | "ErrNoRoute";

/**
 * Step 4a: {@link planSwaps}, with a lot that no venue converts above its floor (or at all)
 * turned into a skip and a warning; any other error is thrown.
 */
export async function planLegs(
  chain: ChainRpc,
  state: PoolState,
  target: AuctionValue,
  percent: number,
  user: string,
  deps: ExecuteDeps,
): Promise<{ legs: PlannedLeg[] } | { skip: SkipReason }> {
  try {
    return { legs: await planSwaps(chain, state, target, percent, deps) };
  } catch (err) {
    if (!(err instanceof ErrSlippageExceeded || err instanceof ErrNoRoute)) throw err;
    deps.log(
      "warn",
      err instanceof ErrNoRoute
        ? "lot cannot be converted to USDC: no venue usable inside the flash answered: skipped"
        : "lot cannot be converted to USDC above the slippage floor: skipped",
      { user, error: describeError(err) },
    );
    return { skip: { kind: "swap_unplannable", error: err.name as SwapErrorName } };
  }
}

/**
 * One swap leg per non-USDC lot asset, sized at the target block for `percent` of the lot. The
 * legs run one after the other inside the flash, so each is quoted after the ones before it
 * (`keeper/dex/joint.ts`). When a later leg cannot clear its floor behind the others, the other
 * order is tried (the first leg then meets untouched pairs). Planned before the wait (quotes,
 * venues, slippage floors), so nothing but the flash is left for the latency-critical moment.
 */
export async function planSwaps(
  chain: ChainRpc,
  state: PoolState,
  target: AuctionValue,
  percent: number,
  deps: ExecuteDeps,
): Promise<PlannedLeg[]> {
  const inputs: { asset: string; amountIn: bigint; ref: bigint }[] = [];
  for (const [asset, lot] of lotAmounts(state, target)) {
    if (asset === deps.usdc) continue;
    // The lot at the target block. The liquidator swaps what actually arrived in the keeper
    // account (the lot grows if the flash lands later) and scales min_out by it, so amountIn only
    // sizes the quote and sets the min_out / amount_in ratio; the whole lot goes to depositors.
    // Every non-USDC lot asset needs exactly one leg (the liquidator refuses a plan that would
    // leave one with the keeper).
    const full = (lot * BigInt(percent)) / 100n;
    const amountIn = full > 0n ? full : 1n;
    inputs.push({ asset, amountIn, ref: oracleRefValue(state, asset, amountIn, deps.usdc) });
  }
  const plan = async (order: typeof inputs): Promise<PlannedLeg[]> => {
    const legs: PlannedLeg[] = [];
    for (const { asset, amountIn, ref } of order) {
      legs.push(
        await deps.dex!.planLeg(chain, asset, amountIn, ref, {
          routers: deps.routers,
          maxSlippageBps: deps.maxSlippageBps,
          tokens: deps.tokens,
          earlier: legs,
        }),
      );
    }
    return legs;
  };
  try {
    return await plan(inputs);
  } catch (err) {
    if (!(err instanceof ErrSlippageExceeded) || inputs.length < 2) throw err;
    return await plan([...inputs].reverse());
  }
}

/**
 * Oracle-implied USDC value of `amount` of `asset` (USDC units): amount × p(asset) / p(USDC),
 * adjusted for decimals. USDC without an oracle price (not a pool reserve) counts as 1 unit of
 * the oracle's base (USD).
 */
export function oracleRefValue(
  state: PoolState,
  asset: string,
  amount: bigint,
  usdc: string,
): bigint {
  const pIn = state.oracle.getPrice(asset);
  if (pIn === undefined) throw new Error(`no oracle price for ${asset}`);
  const decIn = state.pool.reserves.get(asset)?.config.decimals ?? 7;
  const usdcReserve = state.pool.reserves.get(usdc);
  const pUsdc = state.oracle.getPrice(usdc) ?? 10n ** BigInt(state.oracle.decimals);
  const decUsdc = usdcReserve?.config.decimals ?? 7;
  return (amount * pIn * 10n ** BigInt(decUsdc)) / (pUsdc * 10n ** BigInt(decIn));
}

/** What {@link planLiquidation} plans from. */
export interface LiquidationFacts {
  keeper: string;
  user: string;
  pool: string;
  liquidator: string;
  usdc: string;
  /** Percent of the auction to fill. */
  percent: number;
  /** The flash amount (the repayment). */
  amount: bigint;
  /** The USDC bid at the target block (0 from block 400 on). */
  need: bigint;
  lotAssets: readonly string[];
  legs: Pick<PlannedLeg, "amountIn" | "kind" | "minOut" | "path" | "router">[];
  /** The ledger the wait reached (the repayment allowance is counted from it). */
  reachedLedger: number;
}

/** A planned liquidation flash: the Blend requests, the liquidator's plan and what may be signed. */
export interface PlannedFlash {
  requests: xdr.ScVal[];
  plan: xdr.ScVal;
  auth: AuthShape;
}

/**
 * Step 4b, plan (pure): the Blend `submit` requests — fill `percent` of the user's auction, repay
 * the bid with the flash amount, withdraw every lot asset — the liquidator's `LiquidationPlan`
 * and the authorization shape the keeper's signature may cover (anything else is refused
 * unsigned).
 */
export function planLiquidation(f: LiquidationFacts): PlannedFlash {
  // From block 400 on Blend's bid is free: the filler takes on no debt, and repaying a debt it
  // does not have burns 0 d-tokens, which the pool refuses (InvalidDTokenBurnAmount, the real
  // pool and the stand-in alike). Then no Repay: the flash lends 1 unit and the lot is profit.
  const repays = f.need > 0n;
  const requests: Request[] = [
    request(RequestType.FillUserLiquidationAuction, f.user, BigInt(f.percent)),
    ...(repays ? [request(RequestType.Repay, f.usdc, f.amount)] : []),
    ...f.lotAssets.map((a) => request(RequestType.WithdrawCollateral, a, WITHDRAW_ALL)),
  ];
  // The repayment allowance the liquidator sets and clears inside the flash must name a ledger
  // the flash cannot outlive: far beyond the transaction's own validity window.
  const allowanceUntil = f.reachedLedger + ALLOWANCE_LEDGERS;
  const plan = liquidationPlan(f.pool, requests, f.legs, allowanceUntil);
  const requestVals = requests.map(requestScVal);
  const auth = liquidationAuth({
    keeper: f.keeper,
    liquidator: f.liquidator,
    pool: f.pool,
    usdc: f.usdc,
    requests: requestVals,
    repay: repays ? new Map([[f.usdc, f.amount]]) : new Map(),
    lotAssets: f.lotAssets,
    allowanceUntil,
  });
  return { requests: requestVals, plan, auth };
}

/** Ledgers ahead the liquidator's in-invocation repayment allowance may live (see the contract). */
export const ALLOWANCE_LEDGERS = 10_000;

/**
 * The liquidator's `LiquidationPlan` as the ScVal `vault.flash` forwards: the generated type,
 * encoded by the liquidator's own spec (`@vigil/contracts/clients`).
 */
export function liquidationPlan(
  pool: string,
  requests: readonly Request[],
  legs: Pick<PlannedLeg, "amountIn" | "kind" | "minOut" | "path" | "router">[],
  allowanceUntil: number,
  buys: readonly BuyLeg[] = [],
): xdr.ScVal {
  const plan: LiquidationPlan = {
    allowance_until: allowanceUntil,
    buys: [...buys],
    pool,
    requests: [...requests],
    swaps: legs.map((l) => ({
      amount_in: l.amountIn,
      kind: l.kind,
      min_out: l.minOut,
      path: l.path,
      router: l.router,
    })),
  };
  return liquidationPlanScVal(plan);
}

/** A Blend `Request` (the liquidator's spec type). */
function request(type: RequestType, address: string, amount: bigint): Request {
  return { address, amount, request_type: type };
}
