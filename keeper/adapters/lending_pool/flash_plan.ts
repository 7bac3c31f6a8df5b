/**
 * Step 4 of a liquidation, plan: the buy legs that buy a non-USDC bid with USDC and the swap legs
 * that convert a non-USDC lot (and the bought asset's leftover) inside the flash (quoted before
 * the wait), the price check of both, the Blend `submit` requests, the liquidator's
 * `LiquidationPlan` and the authorization shape the keeper's signature may cover.
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
import type { PlannedBuy, PlannedLeg } from "../../dex/swap_client.ts";
import type { EarlierLeg } from "../../dex/joint.ts";
import { type SkipReason, skipReasonText } from "../outcome.ts";
import { type AuctionValue, lotAmounts } from "./auction.ts";
import type { ExecuteDeps } from "./execute_deps.ts";
import { finite } from "./target_block.ts";
import { liquidationAuth } from "./flash_auth.ts";
import type { PoolState } from "./pool_state.ts";

/** "Withdraw everything": the pool caps a withdrawal at the position (as Blend does). */
const WITHDRAW_ALL = 1n << 62n;

/** The names of the swap planner's errors that skip a liquidation. */
export type SwapErrorName = "ErrSlippageExceeded" | "ErrNoRoute";

/** What the buys of a sized liquidation are (`flash_size.ts`'s `SizedLiquidation`). */
export interface SizedBuys {
  percent: number;
  /** The USDC bid at the target block, 100 %. */
  need: bigint;
  /** Per non-USDC bid asset: the bid at `percent` and the exact output to buy. */
  buys: ReadonlyMap<string, { bid: bigint; amountOut: bigint }>;
}

/**
 * Step 4a: the buy legs ({@link planBuys}, first: they run first inside the flash), then the swap
 * legs ({@link planSwaps}: the lot and each bought asset's leftover, quoted behind the buys). With
 * buys, both legs are priced before anything is sent ({@link priceSwaps}): a liquidation whose
 * swaps leave (USDC from selling the lot and leftover) / (USDC spent on buys + USDC repaid) below
 * MIN_PROFIT is skipped (`unprofitable_after_swaps`, a warning with the figures), and a buy quoted
 * above its oracle ceiling (the liquidator would refuse it) is `swap_unplannable`. A lot or bid
 * that no venue converts above its floor (or at all) is a skip and a warning too; any other error
 * is thrown.
 */
export async function planLegs(
  chain: ChainRpc,
  state: PoolState,
  target: AuctionValue,
  sized: SizedBuys,
  user: string,
  deps: ExecuteDeps,
): Promise<{ legs: PlannedLeg[]; buys: PlannedBuy[]; percent: number } | { skip: SkipReason }> {
  let buys: PlannedBuy[] = [];
  let legs: PlannedLeg[];
  const percent = sized.percent;
  try {
    buys = await planBuys(chain, state, sized.buys, deps);
    const leftovers = new Map([...sized.buys].map(([a, b]) => [a, b.amountOut - b.bid]));
    legs = await planSwaps(chain, state, target, sized.percent, deps, {
      leftovers,
      earlier: buys.map(buyAsEarlier),
    });
  } catch (err) {
    if (!(err instanceof ErrSlippageExceeded || err instanceof ErrNoRoute)) throw err;
    // The whole lot would push the pairs past the floor: a smaller part of the auction may not
    // (its swaps move the pairs less). The rest stays in the auction for a later fill.
    const fit = err instanceof ErrSlippageExceeded && sized.buys.size === 0
      ? await fitToDepth(
        sized.percent,
        (p) => planSwaps(chain, state, target, p, deps).catch(unlessSlippage),
      )
      : undefined;
    if (fit) {
      deps.log(
        "info",
        `lot too large for the DEX's depth: filling ${fit.percent}% of the auction`,
        {
          user,
          planned_percent: sized.percent,
          percent: fit.percent,
        },
      );
      return { legs: fit.value, buys, percent: fit.percent };
    }
    const what = buys.length > 0 || sized.buys.size === 0
      ? "lot cannot be converted to USDC"
      : "bid asset cannot be bought with USDC";
    deps.log(
      "warn",
      err instanceof ErrNoRoute
        ? `${what}: no venue usable inside the flash answered: skipped`
        : `${what} above the slippage floor: skipped`,
      { user, error: describeError(err) },
    );
    return { skip: { kind: "swap_unplannable", error: err.name as SwapErrorName } };
  }
  if (buys.length === 0) return { legs, buys, percent };
  const priced = priceSwaps(state, target, sized, buys, legs, deps.usdc);
  const fields = {
    user,
    proceeds: String(priced.proceeds),
    cost: String(priced.cost),
    ratio: finite(priced.ratio),
    min_profit: deps.minProfit,
    buys: buys.map((b) => `${b.path.join(">")} out ${b.amountOut} for ${b.quote}`).join("; "),
  };
  if (!(priced.ratio >= deps.minProfit)) {
    const skip: SkipReason = {
      kind: "unprofitable_after_swaps",
      proceeds: priced.proceeds,
      cost: priced.cost,
      ratio: finite(priced.ratio),
      minProfit: deps.minProfit,
    };
    deps.log("warn", `${skipReasonText(skip)}: skipped, no flash sent`, fields);
    return { skip };
  }
  const above = buys.find((b) => b.aboveCeiling);
  if (above) {
    deps.log("warn", "bid asset costs more than its oracle ceiling: skipped", {
      ...fields,
      quote: String(above.quote),
      ceiling: String(above.ceiling),
    });
    return { skip: { kind: "swap_unplannable", error: "ErrSlippageExceeded" } };
  }
  deps.log("info", "both swap legs priced: the liquidation clears MIN_PROFIT after swaps", fields);
  return { legs, buys, percent };
}

/** The smallest part of an auction {@link fitToDepth} fills: below it a fill rarely pays its fee. */
export const MIN_DEPTH_FIT_PERCENT = 5;

/** Quote rounds {@link fitToDepth} spends at most (percent within ~3 points of the largest). */
const DEPTH_FIT_ROUNDS = 6;

/**
 * The largest percent below `percent` (and at least {@link MIN_DEPTH_FIT_PERCENT}) for which
 * `plan` succeeds, found by bisection over at most {@link DEPTH_FIT_ROUNDS} quote rounds, with what
 * `plan` returned for it; undefined when not even the smallest fits. A smaller lot moves a
 * constant-product pair less, so whether a percent fits only changes once along the way.
 */
export async function fitToDepth<T>(
  percent: number,
  plan: (percent: number) => Promise<T | undefined>,
): Promise<{ percent: number; value: T } | undefined> {
  let lo = MIN_DEPTH_FIT_PERCENT;
  let hi = percent - 1;
  if (hi < lo) return undefined;
  let best: { percent: number; value: T } | undefined;
  for (let round = 0; round < DEPTH_FIT_ROUNDS && lo <= hi; round++) {
    // The first round tries the floor itself: when even that fails, nothing else is quoted.
    const p = round === 0 ? lo : Math.ceil((lo + hi) / 2);
    const value = await plan(p);
    if (value === undefined) {
      if (round === 0) return undefined;
      hi = p - 1;
    } else {
      best = { percent: p, value };
      lo = p + 1;
    }
  }
  return best;
}

/** `undefined` for a slippage refusal (the caller tries a smaller size); any other error rethrown. */
function unlessSlippage(err: unknown): undefined {
  if (err instanceof ErrSlippageExceeded) return undefined;
  throw err;
}

/**
 * One buy leg per non-USDC bid asset, in order, each quoted on the reserves the buys before it
 * leave (`keeper/dex/joint.ts`); `refCost` is the oracle value of the exact output.
 */
export async function planBuys(
  chain: ChainRpc,
  state: PoolState,
  buys: ReadonlyMap<string, { amountOut: bigint }>,
  deps: ExecuteDeps,
): Promise<PlannedBuy[]> {
  const out: PlannedBuy[] = [];
  for (const [asset, { amountOut }] of buys) {
    const ref = oracleRefValue(state, asset, amountOut, deps.usdc);
    out.push(
      await deps.dex!.planBuy(chain, asset, amountOut, ref, {
        routers: deps.routers,
        maxSlippageBps: deps.maxSlippageBps,
        tokens: deps.tokens,
        earlier: out.map(buyAsEarlier),
      }),
    );
  }
  return out;
}

/** A buy as an earlier leg of the flash: its USDC input run along its path. */
function buyAsEarlier(b: PlannedBuy): EarlierLeg {
  return { router: b.router, path: b.path, amountIn: b.quote };
}

/**
 * Both legs priced from their quotes (pure): `proceeds` = the USDC lot plus what the swap legs
 * sell the lot and the bought assets' leftovers for; `cost` = the USDC bid repaid plus what the
 * buys cost; `ratio` = proceeds / cost. The swaps' fees are inside the quotes; the transaction
 * fee is the keeper's, not the vault's.
 */
export function priceSwaps(
  state: PoolState,
  target: AuctionValue,
  sized: Pick<SizedBuys, "percent" | "need">,
  buys: readonly Pick<PlannedBuy, "quote">[],
  legs: readonly Pick<PlannedLeg, "quote">[],
  usdc: string,
): { proceeds: bigint; cost: bigint; ratio: number } {
  const pct = BigInt(sized.percent);
  const usdcLot = ((lotAmounts(state, target).get(usdc) ?? 0n) * pct) / 100n;
  const proceeds = legs.reduce((s, l) => s + l.quote, usdcLot);
  const cost = buys.reduce((s, b) => s + b.quote, (sized.need * pct + 99n) / 100n);
  const ratio = cost > 0n ? Number(proceeds) / Number(cost) : Number.POSITIVE_INFINITY;
  return { proceeds, cost, ratio };
}

/**
 * One swap leg per non-USDC lot asset, sized at the target block for `percent` of the lot, and
 * per bought asset (issue 24: what the pool refunds above the debt, `leftovers`; added to the
 * lot's leg when the asset is in the lot too). The legs run one after the other inside the flash,
 * after the buys (`earlier`), so each is quoted after the ones before it (`keeper/dex/joint.ts`).
 * When a later leg cannot clear its floor behind the others, the other order is tried (the first
 * leg then meets pairs only the buys moved). Planned before the wait (quotes, venues, slippage
 * floors), so nothing but the flash is left for the latency-critical moment.
 */
export async function planSwaps(
  chain: ChainRpc,
  state: PoolState,
  target: AuctionValue,
  percent: number,
  deps: ExecuteDeps,
  bought: { leftovers?: ReadonlyMap<string, bigint>; earlier?: EarlierLeg[] } = {},
): Promise<PlannedLeg[]> {
  const amounts = new Map<string, bigint>();
  for (const [asset, lot] of lotAmounts(state, target)) {
    if (asset === deps.usdc) continue;
    // The lot at the target block. The liquidator swaps what actually arrived in the keeper
    // account (the lot grows if the flash lands later) and scales min_out by it, so amountIn only
    // sizes the quote and sets the min_out / amount_in ratio; the whole lot goes to depositors.
    // Every non-USDC lot asset needs exactly one leg (the liquidator refuses a plan that would
    // leave one with the keeper).
    amounts.set(asset, (lot * BigInt(percent)) / 100n);
  }
  for (const [asset, left] of bought.leftovers ?? []) {
    amounts.set(asset, (amounts.get(asset) ?? 0n) + left);
  }
  const inputs: { asset: string; amountIn: bigint; ref: bigint }[] = [];
  for (const [asset, full] of amounts) {
    const amountIn = full > 0n ? full : 1n;
    inputs.push({ asset, amountIn, ref: oracleRefValue(state, asset, amountIn, deps.usdc) });
  }
  const before = bought.earlier ?? [];
  const plan = async (order: typeof inputs): Promise<PlannedLeg[]> => {
    const legs: PlannedLeg[] = [];
    for (const { asset, amountIn, ref } of order) {
      legs.push(
        await deps.dex!.planLeg(chain, asset, amountIn, ref, {
          routers: deps.routers,
          maxSlippageBps: deps.maxSlippageBps,
          tokens: deps.tokens,
          earlier: [...before, ...legs],
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
  /** The flash amount (the USDC repayment, plus every buy's `max_in`). */
  amount: bigint;
  /** The USDC bid at the target block (0 from block 400 on). */
  need: bigint;
  lotAssets: readonly string[];
  legs: Pick<PlannedLeg, "amountIn" | "kind" | "minOut" | "path" | "router">[];
  /**
   * Buy legs of a non-USDC bid (issue 24), run before `submit`; each bought asset is repaid with
   * its exact output (the pool refunds the excess, sold back by that asset's swap leg).
   */
  buys?: readonly Pick<PlannedBuy, "amountOut" | "maxIn" | "path" | "router">[];
  /** The ledger the wait reached (the repayment allowance is counted from it). */
  reachedLedger: number;
  /**
   * MIN_PROFIT: the liquidator refuses the fill (BelowMinProfit) when the oracle lot/bid ratio of
   * what it moved, at the prices in force when it executes, is below this ({@link minRatioBps}).
   */
  minProfit: number;
}

/** A planned liquidation flash: the Blend requests, the liquidator's plan and what may be signed. */
export interface PlannedFlash {
  requests: xdr.ScVal[];
  plan: xdr.ScVal;
  auth: AuthShape;
}

/**
 * Step 4b, plan (pure): the Blend `submit` requests — fill `percent` of the user's auction, repay
 * the USDC bid with the flash amount less the buys' `max_in`, repay each bought asset with its
 * exact output, withdraw every lot asset — the liquidator's `LiquidationPlan` (with its buy legs)
 * and the authorization shape the keeper's signature may cover (anything else is refused
 * unsigned).
 */
export function planLiquidation(f: LiquidationFacts): PlannedFlash {
  const buys = f.buys ?? [];
  // From block 400 on Blend's bid is free: the filler takes on no debt, and repaying a debt it
  // does not have burns 0 d-tokens, which the pool refuses (InvalidDTokenBurnAmount, the real
  // pool and the stand-in alike). Then no Repay: the flash lends 1 unit and the lot is profit.
  const repays = f.need > 0n;
  const usdcRepay = f.amount - buys.reduce((s, b) => s + b.maxIn, 0n);
  const bought = buys.map((b) => b.path[b.path.length - 1]);
  const requests: Request[] = [
    request(RequestType.FillUserLiquidationAuction, f.user, BigInt(f.percent)),
    ...(repays ? [request(RequestType.Repay, f.usdc, usdcRepay)] : []),
    ...buys.map((b, i) => request(RequestType.Repay, bought[i], b.amountOut)),
    ...f.lotAssets.map((a) => request(RequestType.WithdrawCollateral, a, WITHDRAW_ALL)),
  ];
  // The repayment allowance the liquidator sets and clears inside the flash must name a ledger
  // the flash cannot outlive: far beyond the transaction's own validity window.
  const allowanceUntil = f.reachedLedger + ALLOWANCE_LEDGERS;
  const minRatio = minRatioBps(f.minProfit);
  const plan = liquidationPlan(
    f.pool,
    requests,
    f.legs,
    allowanceUntil,
    buys.map((b) => ({ amount_out: b.amountOut, max_in: b.maxIn, path: b.path, router: b.router })),
    minRatio,
  );
  const requestVals = requests.map(requestScVal);
  const repay = new Map<string, bigint>(repays ? [[f.usdc, usdcRepay]] : []);
  buys.forEach((b, i) => repay.set(bought[i], b.amountOut));
  const auth = liquidationAuth({
    keeper: f.keeper,
    liquidator: f.liquidator,
    pool: f.pool,
    usdc: f.usdc,
    requests: requestVals,
    repay,
    lotAssets: f.lotAssets,
    allowanceUntil,
    bought,
    minRatioBps: minRatio,
  });
  return { requests: requestVals, plan, auth };
}

/** Ledgers ahead the liquidator's in-invocation repayment allowance may live (see the contract). */
export const ALLOWANCE_LEDGERS = 10_000;

/**
 * MIN_PROFIT as the plan's `min_ratio_bps`: rounded up to a whole basis point, so the contract's
 * check is never looser than the keeper's rule (1.02 → 10200; the epsilon absorbs float noise
 * such as 1.02 × 10000 = 10200.000000000002). Capped at u32; at least 1, since 0 turns the
 * check off.
 */
export function minRatioBps(minProfit: number): number {
  const bps = Math.ceil(minProfit * 10_000 - 1e-6);
  return Math.min(0xffff_ffff, Math.max(1, bps));
}

/**
 * The liquidator's `LiquidationPlan` as the ScVal `vault.flash` forwards: the generated type,
 * encoded by the liquidator's own spec (`@vigil/contracts/clients`).
 */
export function liquidationPlan(
  pool: string,
  requests: readonly Request[],
  legs: Pick<PlannedLeg, "amountIn" | "kind" | "minOut" | "path" | "router">[],
  allowanceUntil: number,
  buys: readonly BuyLeg[],
  minRatioBps: number,
): xdr.ScVal {
  const plan: LiquidationPlan = {
    allowance_until: allowanceUntil,
    buys: [...buys],
    min_ratio_bps: minRatioBps,
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
