/**
 * Executing one user liquidation on a Blend v2 pool:
 *
 * 1. Use the user's open liquidation auction, or create one at 50 %. If the pool rejects 50 %
 *    for the health band (1213 too large / 1214 too small), binary-search by simulation for the
 *    nearest accepted percent on the side the error points to, and log it.
 * 2. Value the auction on Blend's 400-block curve with the pool's oracle and find the first
 *    block whose lot_value / bid_cost clears MIN_PROFIT. If that block is further away than one
 *    poll interval, stop (status "waiting", nothing drawn): a later cycle comes back.
 * 3. Draw the bid amount (plus a 0.1 % buffer for interest accrued until the fill, returned
 *    with the proceeds); when the vault's idle capital or the per-keeper cap is short, fill a
 *    smaller percent that fits instead of failing every cycle.
 * 4. Wait for the block before the target and submit ONE transaction — fill, repay the bid,
 *    withdraw the lot — so it lands in the first profitable block, not later.
 * 5. Swap non-USDC lot assets to USDC (SwapToUSDC); proceeds are the measured USDC delta
 *    since before the draw. `return_proceeds(proceeds, response time)`.
 *
 * Failure handling: a lost race (the auction is gone or was replaced when our fill fails) is
 * ErrAlreadyFilled — the untouched draw is returned unchanged, no profit or loss. Any other fill
 * failure returns the draw if it can; if even that fails (e.g. native fees exhausted) the draw
 * stays outstanding, the error says so, and the next cycle's recoverStaleDraw returns it.
 * Collateral that cannot be converted (no DEX, slippage floor, no route) is held and not booked as
 * profit: the draw is settled at exactly its amount from USDC on hand when possible.
 *
 * @module
 */
import { AuctionData, type Positions } from "@blend-capital/blend-sdk";
import type { Account, Keypair } from "@stellar/stellar-sdk";
import {
  ContractCallError,
  describeError,
  ErrAlreadyFilled,
  ErrNoRoute,
  ErrSlippageExceeded,
  TxRejectedError,
} from "../../chain/errors.ts";
import { latestLedger, type LedgerClock, waitForLedger } from "../../chain/ledger.ts";
import type { ChainRpc } from "../../chain/rpc.ts";
import { sv } from "../../chain/scval.ts";
import { invokeContract, type InvokeOptions, simulateRead } from "../../chain/tx.ts";
import type { SwapClient } from "../../dex/mod.ts";
import { ensureTrustline, tokenBalance } from "../../token.ts";
import { noCapitalResult, profitOf, type Result, TaskError, type VaultClient } from "../adapter.ts";
import {
  type AuctionValue,
  bidAmounts,
  firstProfitableBlock,
  readAuction,
  valueAt,
} from "./auction.ts";
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
  minProfit: number;
  pollIntervalSec: number;
  dex?: SwapClient;
  cache: PoolCache;
  clock: LedgerClock;
  invoke?: InvokeOptions;
  log: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
  /** Idle vault capital the keeper may draw now (vault idle and per-keeper cap); undefined = unknown. */
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
  // One poll interval ahead, plus a few ledgers for the draw and trustline transactions, so the
  // next cycle never arrives too late to draw before the target block.
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

  // 3. Capital.
  const bids = bidAmounts(state, target);
  // An auction someone else created may bid other assets: not fillable from USDC capital.
  for (const asset of bids.keys()) {
    if (asset !== deps.usdc) {
      return noCapitalResult("skipped", { details: { reason: USDC_ONLY, bid_asset: asset } });
    }
  }
  const need = bids.get(deps.usdc) ?? 0n;
  let percent = 100;
  let drawAmount = need > 0n ? need + need / 1000n + 1n : 0n;
  const available = await deps.availableCapital?.();
  if (available !== undefined && drawAmount > available) {
    percent = Number((available * 100n) / drawAmount);
    if (percent < 1) {
      return noCapitalResult("skipped", {
        details: {
          reason: "insufficient vault capital",
          need: String(drawAmount),
          available: String(available),
        },
      });
    }
    drawAmount = (need * BigInt(percent) + 99n) / 100n;
    drawAmount += drawAmount / 1000n + 1n;
    deps.log("info", `vault capital short: filling ${percent}% of the auction`, {
      user,
      need: String(need),
      available: String(available),
    });
  }
  const lotAssets = [...auction.lot.keys()];
  // The keeper must be able to receive every lot asset (classic assets need a trustline).
  for (const a of lotAssets) {
    if ((await ensureTrustline(chain, keypair, a, deps.invoke)) === "created") {
      deps.log("info", `trustline created for lot asset ${a}`, { user });
    }
  }
  const [usdcBefore, ...lotBefore] = await Promise.all([
    tokenBalance(chain, deps.usdc, me),
    ...lotAssets.map((a) => (a === deps.usdc ? Promise.resolve(0n) : tokenBalance(chain, a, me))),
  ]);
  const t0 = performance.now();
  if (drawAmount > 0n) await vault.draw(drawAmount);

  // 4. Fill in the target block.
  // Generous deadline (the pace estimate may be off); what matters is below: never fill early.
  const deadline = Date.now() +
    Math.max(2 * deps.pollIntervalSec, (target.block - next + 2) * spl * 2) * 1000 + 10_000;
  // Read the sequence number now: the fill is latency-critical (it must land in the target
  // block), and nothing else signs for this account meanwhile.
  const account = await chain.server.getAccount(me);
  const reached = await waitForLedger(chain, target.block - 1, deadline, {
    clock: deps.clock,
    signal: deps.signal,
    pollMs: Math.max(20, Math.min(250, spl * 100)),
  });
  if (reached.sequence + 1 < target.block) {
    // Shutting down, or the chain is slower than estimated: a fill now would land before the
    // first profitable block (a loss). Give the capital back; a later cycle comes back.
    const rt = Math.round(performance.now() - t0);
    if (drawAmount > 0n) await vault.returnProceeds(drawAmount, rt);
    return {
      drew: drawAmount,
      proceeds: drawAmount,
      profit: 0n,
      responseTimeMs: rt,
      status: "skipped",
      details: {
        user,
        reason: deps.signal?.aborted
          ? "shutdown before the profitable block; draw returned"
          : "profitable block not reached in time; draw returned",
        target_block: target.block,
        latest: reached.sequence,
      },
    };
  }
  const requests = [
    request(REQ_FILL_USER_LIQUIDATION, user, BigInt(percent)),
    ...(drawAmount > 0n ? [request(REQ_REPAY, deps.usdc, drawAmount)] : []),
    ...lotAssets.map((a) => request(REQ_WITHDRAW_COLLATERAL, a, WITHDRAW_ALL)),
  ];
  const submitFill = (acct?: Account) =>
    invokeContract(chain, keypair, deps.poolId, "submit", [
      sv.address(me),
      sv.address(me),
      sv.address(me),
      sv.vec(requests),
    ], { ...deps.invoke, account: acct });
  let fill;
  try {
    try {
      fill = await submitFill(account);
    } catch (err) {
      // The prefetched sequence number went stale (something else signed for this account):
      // nothing was included, so rebuilding with a fresh one is not a retry of the fill.
      if (!(err instanceof TxRejectedError && err.txCode === "txBadSeq")) throw err;
      fill = await submitFill();
    }
  } catch (err) {
    return await onFillFailure(chain, err, { user, auction, drawAmount, vault, deps, t0 });
  }
  const responseTimeMs = Math.round(performance.now() - t0);
  deps.touched?.(user, me);

  // 5. Convert the lot and settle.
  const held: { asset: string; amount: string; reason: string }[] = [];
  for (const [i, asset] of lotAssets.entries()) {
    if (asset === deps.usdc) continue;
    const got = (await tokenBalance(chain, asset, me)) - lotBefore[i];
    if (got <= 0n) continue;
    if (!deps.dex) {
      held.push({ asset, amount: String(got), reason: "no DEX configured" });
      continue;
    }
    try {
      const ref = oracleRefValue(state, asset, got, deps.usdc);
      const out = await deps.dex.swapToUSDC(chain, keypair, asset, got, ref);
      deps.log("info", `swapped seized ${asset} to USDC on ${out.venue}`, {
        amount_in: String(got),
        proceeds: String(out.proceeds),
        quote: String(out.quote),
        floor: String(out.floor),
        tx_hash: out.txHash,
        failed_venues: out.failures.map((f) => `${f.venue}: ${f.error}`).join("; ") || undefined,
      });
    } catch (err) {
      const reason = err instanceof ErrSlippageExceeded || err instanceof ErrNoRoute
        ? err.name
        : describeError(err);
      held.push({ asset, amount: String(got), reason });
      deps.log("warn", `seized ${asset} not converted; held`, {
        amount: String(got),
        error: describeError(err),
      });
    }
  }
  const usdcAfter = await tokenBalance(chain, deps.usdc, me);
  const proceeds = usdcAfter - usdcBefore;
  const base = {
    drew: drawAmount,
    responseTimeMs,
    txHash: fill.hash,
    details: {
      user,
      percent,
      auction_block: auction.block,
      fill_ledger: fill.ledger,
      target_block: target.block,
      ratio: finite(target.ratio),
      measured_usdc_delta: String(proceeds),
    } as Record<string, string | number | boolean | null>,
  };
  if (held.length === 0) {
    if (drawAmount > 0n || proceeds > 0n) await vault.returnProceeds(proceeds, responseTimeMs);
    return { ...base, proceeds, profit: profitOf(drawAmount, proceeds), status: "filled" };
  }
  base.details.held = held.map((h) => `${h.amount} ${h.asset} (${h.reason})`).join("; ");
  if (proceeds >= drawAmount) {
    // The converted part alone covers the draw: return it; only realized USDC is booked.
    await vault.returnProceeds(proceeds, responseTimeMs);
    return { ...base, proceeds, profit: profitOf(drawAmount, proceeds), status: "held" };
  }
  if (usdcAfter >= drawAmount) {
    // Settle the draw at exactly its amount: the vault is whole, no profit is booked, the keeper
    // owns the held collateral (what recoverStaleDraw would do one cycle later).
    await vault.returnProceeds(drawAmount, responseTimeMs);
    return { ...base, proceeds: drawAmount, profit: 0n, status: "held" };
  }
  deps.log("warn", "collateral held and USDC on hand is below the draw: draw left outstanding", {
    draw: String(drawAmount),
    usdc_on_hand: String(usdcAfter),
  });
  return { ...base, proceeds: 0n, profit: 0n, status: "held" };
}

async function onFillFailure(
  chain: ChainRpc,
  err: unknown,
  c: {
    user: string;
    auction: AuctionData;
    drawAmount: bigint;
    vault: VaultClient;
    deps: ExecuteDeps;
    t0: number;
  },
): Promise<Result> {
  let still: AuctionData | undefined;
  let readOk = true;
  try {
    still = await readAuction(chain, c.deps.poolId, c.user);
  } catch {
    readOk = false;
  }
  const lost = readOk && (!still || still.block !== c.auction.block);
  const rt = Math.round(performance.now() - c.t0);
  const fail = lost ? new ErrAlreadyFilled() : err;
  if (c.drawAmount === 0n) {
    if (lost) return noCapitalResult("lost_race", { details: { user: c.user } });
    throw err;
  }
  try {
    await c.vault.returnProceeds(c.drawAmount, rt);
  } catch (retErr) {
    throw new TaskError(
      `fill failed (${describeError(err)}) and returning the draw failed (${
        describeError(retErr)
      }): ` +
        `draw of ${c.drawAmount} left outstanding; recoverStaleDraw will return it`,
      {
        drew: c.drawAmount,
        proceeds: 0n,
        profit: 0n,
        responseTimeMs: rt,
        status: lost ? "lost_race" : "failed",
        details: { user: c.user, outstanding: String(c.drawAmount) },
      },
      err,
    );
  }
  const result: Result = {
    drew: c.drawAmount,
    proceeds: c.drawAmount,
    profit: 0n,
    responseTimeMs: rt,
    status: lost ? "lost_race" : "failed",
    details: { user: c.user, error: describeError(fail) },
  };
  if (lost) return result;
  throw new TaskError(`fill failed: ${describeError(err)}; draw returned unchanged`, result, err);
}

/** Why a position or auction is skipped when its debt is not in USDC. */
export const USDC_ONLY =
  "debt not in USDC: only USDC-denominated bids are filled from vault capital";

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
    const r = await invokeContract(
      chain,
      keypair,
      deps.poolId,
      "new_auction",
      args(percent),
      deps.invoke,
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
