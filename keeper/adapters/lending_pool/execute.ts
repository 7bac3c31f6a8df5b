/**
 * Executing one user liquidation on a Blend v2 pool, in ONE transaction (issue 12):
 *
 * 1. Use the user's open liquidation auction, or create one at 50 %. If the pool rejects 50 %
 *    for the health band (1213 too large / 1214 too small), binary-search by simulation for the
 *    nearest accepted percent on the side the error points to, and log it.
 * 2. Value the auction on Blend's 400-block curve with the pool's oracle and find the first
 *    block whose lot_value / bid_cost clears MIN_PROFIT. If that block is further away than one
 *    poll interval, stop (status "waiting"): a later cycle comes back.
 * 3. Size the flash: the bid amount plus a 0.1 % buffer for interest accrued until the fill
 *    (paid back with the rest); when the vault's idle capital or the per-flash cap is short, fill
 *    a smaller percent that fits. Non-USDC lot assets need the DEX client (without one the
 *    auction is skipped with a log line) and a trustline.
 * 4. Plan the liquidator's work — one Blend `submit` (fill, repay the bid, withdraw the lot) and
 *    one swap per non-USDC lot asset on a Soroswap-ABI router of the vault's flash policy, each
 *    with the oracle-based slippage floor as `min_out` —
 *    then wait for the block before the target and send `vault.flash(keeper, liquidator, amount,
 *    plan, response_time_ms)`. `flash` simulates first and sends only when the simulated profit
 *    is positive; the transaction lands in the first profitable block.
 *
 * Failure handling: nothing is ever outstanding. A lost race (the auction is gone or was replaced
 * when our simulation or transaction fails) is status "lost_race"; an unprofitable simulation is
 * "skipped"; any other failure throws. In every case the flash reverted as a whole, so the vault
 * lent nothing and booked nothing — a crash or `kill -9` at any point costs it nothing either.
 *
 * @module
 */
import { AuctionData, type Positions } from "@blend-capital/blend-sdk";
import type { Keypair, xdr } from "@stellar/stellar-sdk";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import {
  ContractCallError,
  describeError,
  ErrNoRoute,
  ErrSlippageExceeded,
  TxRejectedError,
  UnexpectedAuthError,
} from "@vigil/soroban/errors";
import { latestLedger, type LedgerClock, waitForLedger } from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import { invokeContract, type InvokeOptions, simulateRead } from "@vigil/soroban/tx";
import type { PlannedLeg, SwapClient } from "../../dex/swap_client.ts";
import { ensureTrustline } from "../../token.ts";
import {
  type FlashOutcome,
  FlashUnprofitableError,
  noCapitalResult,
  type Result,
  type VaultClient,
} from "../adapter.ts";
import {
  type AuctionValue,
  bidAmounts,
  firstProfitableBlock,
  lotAmounts,
  readAuction,
  valueAt,
} from "./auction.ts";
import { liquidationAuth } from "./flash_auth.ts";
import { loadPoolState, type PoolCache, type PoolState } from "./pool_state.ts";

/** Blend pool error codes the keeper branches on. */
export const PoolErrors = {
  InvalidLiquidation: 1211,
  AuctionInProgress: 1212,
  InvalidLiqTooLarge: 1213,
  InvalidLiqTooSmall: 1214,
} as const;

/** Blend request types used here. */
const REQ_WITHDRAW_COLLATERAL = 3;
const REQ_REPAY = 5;
const REQ_FILL_USER_LIQUIDATION = 6;
/** "Withdraw everything": the pool caps a withdrawal at the position (as Blend does). */
const WITHDRAW_ALL = 1n << 62n;
/** Percent of a new user-liquidation auction. */
export const DEFAULT_AUCTION_PERCENT = 50;

/** What the lending-pool adapter needs to execute. */
export interface ExecuteDeps {
  poolId: string;
  /** USDC_CONTRACT (the vault's settlement token). */
  usdc: string;
  /** LIQUIDATOR_CONTRACT: the flash executor that fills, swaps and repays. */
  liquidator: string;
  minProfit: number;
  pollIntervalSec: number;
  dex?: SwapClient;
  /**
   * The routers of the vault's flash policy: swaps inside the flash use only Soroswap-ABI venues
   * whose router is listed (undefined: every Soroswap-ABI venue).
   */
  routers?: ReadonlySet<string>;
  /** The flash policy's `max_slippage_bps`: the planned floors are never looser than it. */
  maxSlippageBps?: number;
  /** The flash policy's hop tokens: a swap path passes only through these (or is direct). */
  tokens?: readonly string[];
  cache: PoolCache;
  clock: LedgerClock;
  invoke?: InvokeOptions;
  log: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
  /** The largest flash the keeper may take now (vault idle and per-flash cap); undefined = unknown. */
  availableCapital?: () => Promise<bigint | undefined>;
  /** Called when positions changed because of us (re-read next sync). */
  touched?: (...users: string[]) => void;
  signal?: AbortSignal;
}

/** The task payload of a liquidation. */
export interface LiquidationTask {
  user: string;
  positions: Positions;
  hf: number | null;
}

/** Executes a liquidation task (see the module doc). */
export async function executeLiquidation(
  chain: ChainRpc,
  keypair: Keypair,
  task: LiquidationTask,
  vault: VaultClient,
  deps: ExecuteDeps,
): Promise<Result> {
  const me = keypair.publicKey();
  const { user } = task;
  if (user === me) return noCapitalResult("skipped", { details: { reason: "own position" } });
  const state = await loadPoolState(chain, deps.poolId, deps.cache);

  // 1. The auction: existing, or created now.
  let auction = await readAuction(chain, deps.poolId, user);
  if (!auction) {
    if (task.positions.liabilities.size === 0) {
      return noCapitalResult("skipped", { details: { reason: "no auction and no debt" } });
    }
    // Vault capital is USDC: only USDC liabilities can be bid. A position with no USDC debt is
    // left alone rather than auctioned at a fee and then never filled.
    if (!task.positions.liabilities.has(state.reserveList.indexOf(deps.usdc))) {
      return noCapitalResult("skipped", { details: { reason: USDC_ONLY } });
    }
    // Never create an auction whose non-USDC lot could not be converted inside the flash.
    const blocked = nonUsdcCollateral(state, task.positions, deps.usdc)
      ? conversionBlocker(deps)
      : undefined;
    if (blocked) return noCapitalResult("skipped", { details: { reason: blocked } });
    auction = await createAuction(chain, keypair, state, task, deps);
    if (!auction) {
      return noCapitalResult("skipped", {
        details: { reason: "auction vanished after creation race" },
      });
    }
  }

  // 2. The first profitable block.
  const head = await latestLedger(chain);
  deps.clock.observe(head.sequence);
  const next = head.sequence + 1;
  const target = firstProfitableBlock(state, user, auction, deps.minProfit, next);
  const now = valueAt(state, user, auction, next);
  if (!target) {
    return noCapitalResult("waiting", {
      details: { reason: "never clears MIN_PROFIT (or unpriced)", ratio_now: finite(now.ratio) },
    });
  }
  const spl = deps.clock.secondsPerLedger();
  // One poll interval ahead, plus a few ledgers for the trustline transactions, so the next
  // cycle never arrives too late to send the flash before the target block.
  const maxWait = Math.ceil(deps.pollIntervalSec / spl) + 3;
  if (target.block - next > maxWait) {
    return noCapitalResult("waiting", {
      details: {
        auction_block: auction.block,
        target_block: target.block,
        ledgers_to_go: target.block - next,
        ratio_now: finite(now.ratio),
        ratio_at_target: finite(target.ratio),
      },
    });
  }

  // 3. The flash amount.
  const t0 = performance.now();
  const bids = bidAmounts(state, target);
  // An auction someone else created may bid other assets: not fillable from USDC capital.
  for (const asset of bids.keys()) {
    if (asset !== deps.usdc) {
      return noCapitalResult("skipped", { details: { reason: USDC_ONLY, bid_asset: asset } });
    }
  }
  const lotAssets = [...auction.lot.keys()];
  const lotBlocked = lotAssets.some((a) => a !== deps.usdc) ? conversionBlocker(deps) : undefined;
  if (lotBlocked) {
    deps.log(
      "info",
      "auction lot holds non-USDC assets that cannot be swapped in a flash: skipped",
      {
        user,
        lot: lotAssets.join(","),
        reason: lotBlocked,
      },
    );
    return noCapitalResult("skipped", { details: { reason: lotBlocked } });
  }
  const need = bids.get(deps.usdc) ?? 0n;
  let percent = 100;
  let amount = need + need / 1000n + 1n;
  const available = await deps.availableCapital?.();
  if (available !== undefined && amount > available) {
    percent = Number((available * 100n) / amount);
    if (percent < 1) {
      return noCapitalResult("skipped", {
        details: {
          reason: "insufficient vault capital",
          need: String(amount),
          available: String(available),
        },
      });
    }
    amount = (need * BigInt(percent) + 99n) / 100n;
    amount += amount / 1000n + 1n;
    deps.log("info", `vault capital short: filling ${percent}% of the auction`, {
      user,
      need: String(need),
      available: String(available),
    });
  }
  // The keeper account receives every lot asset (classic assets need a trustline).
  for (const a of lotAssets) {
    if ((await ensureTrustline(chain, keypair, a, deps.invoke)) === "created") {
      deps.log("info", `trustline created for lot asset ${a}`, { user });
    }
  }

  // The swaps are planned (quotes, venue, slippage floors) before waiting, so nothing but the
  // flash itself is left for the latency-critical moment.
  let legs: PlannedLeg[];
  try {
    legs = await planSwaps(chain, state, target, percent, deps);
  } catch (err) {
    if (err instanceof ErrSlippageExceeded || err instanceof ErrNoRoute) {
      deps.log(
        "warn",
        err instanceof ErrNoRoute
          ? "lot cannot be converted to USDC: no venue usable inside the flash answered: skipped"
          : "lot cannot be converted to USDC above the slippage floor: skipped",
        { user, error: describeError(err) },
      );
      return noCapitalResult("skipped", { details: { user, reason: err.name } });
    }
    throw err;
  }

  // 4. Wait for the block before the target, then send the flash.
  // Generous deadline (the pace estimate may be off); what matters is below: never fill early.
  const deadline = Date.now() +
    Math.max(2 * deps.pollIntervalSec, (target.block - next + 2) * spl * 2) * 1000 + 10_000;
  // Read the sequence number now: the flash is latency-critical (it must land in the target
  // block), and nothing else signs for this account meanwhile.
  const account = await chain.server.getAccount(me);
  const reached = await waitForLedger(chain, target.block - 1, deadline, {
    clock: deps.clock,
    signal: deps.signal,
    pollMs: Math.max(20, Math.min(250, spl * 100)),
  });
  if (reached.sequence + 1 < target.block) {
    // Shutting down, or the chain is slower than estimated: a fill now would land before the
    // first profitable block. Nothing was lent; a later cycle comes back.
    return noCapitalResult("skipped", {
      details: {
        user,
        reason: deps.signal?.aborted
          ? "shutdown before the profitable block"
          : "profitable block not reached in time",
        target_block: target.block,
        latest: reached.sequence,
      },
    });
  }
  // From block 400 on Blend's bid is free: the filler takes on no debt, and repaying a debt it
  // does not have burns 0 d-tokens, which the pool refuses (#1219 InvalidDTokenBurnAmount, the
  // real pool and the stand-in alike). Then no Repay: the flash lends 1 unit and the lot is profit.
  const repays = need > 0n;
  const requests = [
    request(REQ_FILL_USER_LIQUIDATION, user, BigInt(percent)),
    ...(repays ? [request(REQ_REPAY, deps.usdc, amount)] : []),
    ...lotAssets.map((a) => request(REQ_WITHDRAW_COLLATERAL, a, WITHDRAW_ALL)),
  ];
  // The repayment allowance the liquidator sets and clears inside the flash must name a ledger
  // the flash cannot outlive: far beyond the transaction's own validity window.
  const allowanceUntil = reached.sequence + ALLOWANCE_LEDGERS;
  const plan = liquidationPlan(deps.poolId, requests, legs, allowanceUntil);
  // What the keeper's signature may cover, from the plan: anything else is refused unsigned.
  const auth = liquidationAuth({
    keeper: me,
    liquidator: deps.liquidator,
    pool: deps.poolId,
    usdc: deps.usdc,
    requests,
    repay: repays ? new Map([[deps.usdc, amount]]) : new Map(),
    lotAssets,
    allowanceUntil,
  });
  const responseTimeMs = Math.round(performance.now() - t0);
  let out: FlashOutcome;
  try {
    try {
      out = await vault.flash(deps.liquidator, amount, plan, responseTimeMs, { account, auth });
    } catch (err) {
      // The prefetched sequence number went stale (something else signed for this account):
      // nothing was included, so rebuilding with a fresh one is not a retry of the flash.
      if (!(err instanceof TxRejectedError && err.txCode === "txBadSeq")) throw err;
      out = await vault.flash(deps.liquidator, amount, plan, responseTimeMs, { auth });
    }
  } catch (err) {
    return await onFlashFailure(chain, err, { user, auction, amount, deps, responseTimeMs });
  }
  deps.touched?.(user, me);
  for (const l of legs) {
    deps.log("info", `swapped seized ${l.path[0]} to USDC on ${l.venue} inside the flash`, {
      amount_in: String(l.amountIn),
      min_out: String(l.minOut),
      quote: String(l.quote),
      floor: String(l.floor),
      path: l.path.join(">"),
      tx_hash: out.txHash,
      failed_venues: l.failures.map((f) => `${f.venue}: ${f.error}`).join("; ") || undefined,
    });
  }
  return {
    drew: amount,
    proceeds: amount + out.profit,
    profit: out.profit,
    responseTimeMs,
    status: "filled",
    txHash: out.txHash,
    details: {
      user,
      percent,
      auction_block: auction.block,
      fill_ledger: out.ledger,
      target_block: target.block,
      ratio: finite(target.ratio),
      swaps: legs.length,
    },
  };
}

/**
 * One swap leg per non-USDC lot asset, sized at the target block for `percent` of the lot. The
 * legs run one after the other inside the flash, so each is quoted after the ones before it
 * (`keeper/dex/joint.ts`). When a later leg cannot clear its floor behind the others, the other
 * order is tried (the first leg then meets untouched pairs).
 */
async function planSwaps(
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

/** Ledgers ahead the liquidator's in-invocation repayment allowance may live (see the contract). */
export const ALLOWANCE_LEDGERS = 10_000;

/**
 * The liquidator's `LiquidationPlan { allowance_until, pool, requests, swaps }` (fields sorted by
 * name).
 */
export function liquidationPlan(
  pool: string,
  requests: xdr.ScVal[],
  legs: Pick<PlannedLeg, "amountIn" | "kind" | "minOut" | "path" | "router">[],
  allowanceUntil: number,
): xdr.ScVal {
  return sv.struct({
    allowance_until: sv.u32(allowanceUntil),
    pool: sv.address(pool),
    requests: sv.vec(requests),
    swaps: sv.vec(legs.map((l) =>
      sv.struct({
        amount_in: sv.i128(l.amountIn),
        kind: sv.u32(l.kind),
        min_out: sv.i128(l.minOut),
        path: sv.addresses(l.path),
        router: sv.address(l.router),
      })
    )),
  });
}

async function onFlashFailure(
  chain: ChainRpc,
  err: unknown,
  c: {
    user: string;
    auction: AuctionData;
    amount: bigint;
    deps: ExecuteDeps;
    responseTimeMs: number;
  },
): Promise<Result> {
  if (err instanceof FlashUnprofitableError) {
    return noCapitalResult("skipped", {
      details: {
        user: c.user,
        reason: "simulated flash profit not positive",
        simulated_profit: String(err.simulatedProfit),
      },
    });
  }
  if (err instanceof UnexpectedAuthError) {
    // The flash asked the keeper to authorize something it did not plan (a hostile pool,
    // router or token): nothing was signed. Logged with its reason where it was refused.
    return noCapitalResult("skipped", {
      details: {
        user: c.user,
        reason: `refused to sign: ${err.reason}`,
        refused_invocation: err.invocation,
        refused_path: err.path,
      },
    });
  }
  let still: AuctionData | undefined;
  let readOk = true;
  try {
    still = await readAuction(chain, c.deps.poolId, c.user);
  } catch {
    readOk = false;
  }
  const lost = readOk && (!still || still.block !== c.auction.block);
  if (lost) {
    // Another keeper filled first: our flash reverted as a whole (or was never sent).
    return noCapitalResult("lost_race", {
      responseTimeMs: c.responseTimeMs,
      details: { user: c.user, error: describeError(err) },
    });
  }
  throw err;
}

/** Why a position or auction is skipped when its debt is not in USDC. */
export const USDC_ONLY =
  "debt not in USDC: only USDC-denominated bids are filled from vault capital";

/**
 * Why a non-USDC lot could not be converted to USDC inside a flash ({@link NO_DEX} or
 * {@link NO_FLASH_VENUE}), or undefined when a usable venue exists.
 */
function conversionBlocker(deps: ExecuteDeps): string | undefined {
  if (!deps.dex) return NO_DEX;
  return deps.dex.flashVenues(deps.routers).length === 0 ? NO_FLASH_VENUE : undefined;
}

/** Why an auction with a non-USDC lot is skipped when no DEX venue may be used inside a flash. */
export const NO_FLASH_VENUE =
  "NO_ROUTE: non-USDC lot and no DEX venue usable inside a flash (a Soroswap-ABI router in the vault's flash policy)";

/** Why an auction with a non-USDC lot is skipped without a DEX client. */
export const NO_DEX = "non-USDC lot and no DEX configured: only USDC lots can be filled";

function nonUsdcCollateral(state: PoolState, positions: Positions, usdc: string): boolean {
  return [...positions.collateral.keys()].some((i) => state.reserveList[i] !== usdc);
}

/** Creates the auction (50 %, or the nearest accepted percent); undefined if it vanished. */
async function createAuction(
  chain: ChainRpc,
  keypair: Keypair,
  state: PoolState,
  task: LiquidationTask,
  deps: ExecuteDeps,
): Promise<AuctionData | undefined> {
  // Bid only the USDC liability (Blend lets the creator choose the bid assets); other debt stays
  // with the borrower for a keeper that holds those assets.
  const bid = [...task.positions.liabilities.keys()]
    .map((i) => state.reserveList[i])
    .filter((a) => a === deps.usdc);
  const lot = [...task.positions.collateral.keys()].map((i) => state.reserveList[i]);
  if (bid.length === 0 || lot.length === 0) {
    throw new Error("position has no debt or no collateral");
  }
  const args = (p: number) => [
    sv.u32(0),
    sv.address(task.user),
    sv.addresses(bid),
    sv.addresses(lot),
    sv.u32(p),
  ];
  const percent = await choosePercent(async (p) => {
    try {
      await simulateRead(chain, deps.poolId, "new_auction", args(p));
      return "ok";
    } catch (err) {
      const code = err instanceof ContractCallError ? err.contractCode : undefined;
      if (code === PoolErrors.InvalidLiqTooLarge) return "large";
      if (code === PoolErrors.InvalidLiqTooSmall) return "small";
      if (code === PoolErrors.AuctionInProgress) return "exists";
      throw err;
    }
  });
  if (percent === "exists") return await readAuction(chain, deps.poolId, task.user);
  if (percent !== DEFAULT_AUCTION_PERCENT) {
    deps.log(
      "info",
      `pool rejected a ${DEFAULT_AUCTION_PERCENT}% auction; using nearest accepted ${percent}%`,
      {
        user: task.user,
        percent,
      },
    );
  }
  try {
    // Creating an auction needs no nested authorization from the keeper.
    const r = await invokeContract(
      chain,
      keypair,
      deps.poolId,
      "new_auction",
      args(percent),
      { ...deps.invoke, auth: ROOT_ONLY },
    );
    deps.log("info", `liquidation auction created for ${task.user} at ${percent}%`, {
      user: task.user,
      percent,
      tx_hash: r.hash,
      ledger: r.ledger,
    });
    if (r.returnValue) return AuctionData.fromScVal(r.returnValue.toXDR("base64"));
    return await readAuction(chain, deps.poolId, task.user);
  } catch (err) {
    // Another keeper created it between our simulation and our transaction.
    if (err instanceof ContractCallError && err.contractCode === PoolErrors.AuctionInProgress) {
      return await readAuction(chain, deps.poolId, task.user);
    }
    throw err;
  }
}

/** Outcome of probing one percent. */
export type Probe = "ok" | "large" | "small" | "exists";

/**
 * The accepted percent nearest to 50: 50 itself, else the smallest accepted above it (when 50 is
 * too small) or the largest accepted below it (when 50 is too large), by binary search over the
 * pool's monotone health band. "exists" when an auction already exists. Throws when no percent
 * is accepted.
 */
export async function choosePercent(
  probe: (p: number) => Promise<Probe>,
): Promise<number | "exists"> {
  const first = await probe(DEFAULT_AUCTION_PERCENT);
  if (first === "ok" || first === "exists") {
    return first === "ok" ? DEFAULT_AUCTION_PERCENT : "exists";
  }
  if (first === "small") {
    // Smallest p in (50, 100] that is not "too small".
    let lo = DEFAULT_AUCTION_PERCENT, hi = 100;
    const top = await probe(hi);
    if (top === "exists") return "exists";
    if (top === "small") {
      throw new Error("no accepted liquidation percent (even 100% is too small)");
    }
    let best = top === "ok" ? hi : undefined;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const r = await probe(mid);
      if (r === "exists") return "exists";
      if (r === "small") lo = mid;
      else {
        hi = mid;
        if (r === "ok") best = mid;
      }
    }
    if (best === undefined) throw new Error("no accepted liquidation percent above 50%");
    return best;
  }
  // Too large: largest p in [1, 50) that is not "too large".
  let lo = 1, hi = DEFAULT_AUCTION_PERCENT;
  const bottom = await probe(lo);
  if (bottom === "exists") return "exists";
  if (bottom === "large") throw new Error("no accepted liquidation percent (even 1% is too large)");
  let best = bottom === "ok" ? lo : undefined;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    const r = await probe(mid);
    if (r === "exists") return "exists";
    if (r === "large") hi = mid;
    else {
      lo = mid;
      if (r === "ok") best = mid;
    }
  }
  if (best === undefined) throw new Error("no accepted liquidation percent below 50%");
  return best;
}

/** A Blend `Request {address, amount, request_type}`. */
function request(type: number, address: string, amount: bigint) {
  return sv.struct({
    address: sv.address(address),
    amount: sv.i128(amount),
    request_type: sv.u32(type),
  });
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

function finite(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 1e6) / 1e6 : null;
}

export type { AuctionValue };
