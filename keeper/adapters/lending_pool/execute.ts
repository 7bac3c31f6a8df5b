/**
 * Executing one user liquidation on a Blend v2 pool, in ONE transaction (issue 12). Deciding is
 * kept apart from sending: {@link executeLiquidation} runs the steps below in order, each a small
 * exported function — ensure-auction ({@link ensureAuction}, {@link creationBlocker}) → target
 * block ({@link targetBlock}) → size ({@link sizeLiquidation}, {@link sizeFlash}) → plan
 * ({@link planLegs}, {@link planLiquidation}) → send ({@link awaitTarget}, {@link sendFlash},
 * {@link classifyFlashFailure}). The pure ones are tested alone in `execute_test.ts`.
 *
 * 1. Use the user's open liquidation auction, or create one at 50 %. If the pool rejects 50 %
 *    for the health band (`ContractErrorType.InvalidLiqTooLarge` / `InvalidLiqTooSmall`), binary-search by simulation for the
 *    nearest accepted percent on the side the error points to, and log it.
 * 2. Value the auction on Blend's 400-block curve with the pool's oracle and find the first
 *    block whose lot_value / bid_cost clears MIN_PROFIT. If that block is further away than one
 *    poll interval, stop (outcome "waiting"): a later cycle comes back.
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
 * when our simulation or transaction fails) is outcome "lost_race"; an unprofitable simulation is
 * "skipped" (a typed {@link SkipReason}); any other failure throws. In every case the flash reverted as a whole, so the vault
 * lent nothing and booked nothing — a crash or `kill -9` at any point costs it nothing either.
 *
 * @module
 */
import {
  AuctionData,
  AuctionType,
  ContractErrorType,
  type Positions,
  RequestType,
} from "@blend-capital/blend-sdk";
import type { Account, Keypair, xdr } from "@stellar/stellar-sdk";
import { ROOT_ONLY } from "@vigil/soroban/auth_guard";
import {
  ContractCallError,
  describeError,
  ErrNoRoute,
  ErrSlippageExceeded,
  TxRejectedError,
  UnexpectedAuthError,
} from "@vigil/soroban/errors";
import type { AuthShape } from "@vigil/soroban/auth_guard";
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
  skipped,
  type VaultClient,
} from "../adapter.ts";
import {
  blockerText,
  type ConversionBlocker,
  NO_DEX,
  NO_FLASH_VENUE,
  type SkipReason,
  type TaskOutcome,
  USDC_ONLY,
  type WaitReason,
} from "../outcome.ts";
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

export { NO_DEX, NO_FLASH_VENUE, USDC_ONLY };

/**
 * The Blend pool errors the keeper's liquidation path knows, by name, with blend-sdk's numbers
 * (a test checks them against the real pool's spec).
 */
export const PoolErrors = {
  InvalidLiquidation: ContractErrorType.InvalidLiquidation,
  AuctionInProgress: ContractErrorType.AuctionInProgress,
  InvalidLiqTooLarge: ContractErrorType.InvalidLiqTooLarge,
  InvalidLiqTooSmall: ContractErrorType.InvalidLiqTooSmall,
  InvalidDTokenBurnAmount: ContractErrorType.InvalidDTokenBurnAmount,
} as const;

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

/**
 * Executes a liquidation task (see the module doc): the steps in order, each step's early
 * outcome (skipped, waiting) returned as it comes.
 */
export async function executeLiquidation(
  chain: ChainRpc,
  keypair: Keypair,
  task: LiquidationTask,
  vault: VaultClient,
  deps: ExecuteDeps,
): Promise<Result> {
  const me = keypair.publicKey();
  const { user } = task;
  if (user === me) return skipped({ kind: "own_position" });
  const state = await loadPoolState(chain, deps.poolId, deps.cache);

  // 1. The auction: existing, or created now.
  const ensured = await ensureAuction(chain, keypair, state, task, deps);
  if ("skip" in ensured) return skipped(ensured.skip);
  const { auction } = ensured;

  // 2. The first profitable block.
  const head = await latestLedger(chain);
  deps.clock.observe(head.sequence);
  // The pace estimate, read once: the wait below sizes its deadline and polling from it too.
  const spl = deps.clock.secondsPerLedger();
  const decided = targetBlock(state, user, auction, {
    minProfit: deps.minProfit,
    next: head.sequence + 1,
    pollIntervalSec: deps.pollIntervalSec,
    secondsPerLedger: spl,
  });
  if ("wait" in decided) return noCapitalResult({ status: "waiting", reason: decided.wait });
  const { target, next } = decided;

  // 3. The flash amount.
  const t0 = performance.now();
  const size = await sizeLiquidation(state, auction, target, user, deps);
  if ("skip" in size) return skipped(size.skip);
  const { percent, amount, need, lotAssets } = size;
  await ensureTrustlines(chain, keypair, lotAssets, user, deps);

  // 4. The swaps are planned (quotes, venue, slippage floors) before waiting, so nothing but the
  // flash itself is left for the latency-critical moment.
  const swaps = await planLegs(chain, state, target, percent, user, deps);
  if ("skip" in swaps) return skipped(swaps.skip, user);
  const { legs } = swaps;

  // 5. Wait for the block before the target, then send the flash.
  const waited = await awaitTarget(chain, me, { targetBlock: target.block, next, spl }, deps);
  if ("skip" in waited) return skipped(waited.skip, user);
  const planned = planLiquidation({
    keeper: me,
    user,
    pool: deps.poolId,
    liquidator: deps.liquidator,
    usdc: deps.usdc,
    percent,
    amount,
    need,
    lotAssets,
    legs,
    reachedLedger: waited.reached,
  });
  const responseTimeMs = Math.round(performance.now() - t0);
  let out: FlashOutcome;
  try {
    out = await sendFlash(vault, deps.liquidator, amount, planned, responseTimeMs, waited.account);
  } catch (err) {
    return await classifyFlashFailure(chain, err, {
      user,
      auction,
      poolId: deps.poolId,
      responseTimeMs,
    });
  }
  deps.touched?.(user, me);
  logSwaps(deps.log, legs, out.txHash);
  return filledResult(out, {
    user,
    percent,
    amount,
    responseTimeMs,
    auctionBlock: auction.block,
    target,
    swaps: legs.length,
  });
}

/**
 * Step 3, size: the bid must be USDC ({@link unfillableBid}) and a non-USDC lot convertible
 * inside the flash (skipped with a log line otherwise); then the flash amount for the USDC bid
 * and the vault's available capital ({@link sizeFlash}; a short fill is logged).
 */
export async function sizeLiquidation(
  state: PoolState,
  auction: AuctionData,
  target: AuctionValue,
  user: string,
  deps: Pick<ExecuteDeps, "usdc" | "dex" | "routers" | "availableCapital" | "log">,
): Promise<
  { percent: number; amount: bigint; need: bigint; lotAssets: string[] } | { skip: SkipReason }
> {
  const bids = bidAmounts(state, target);
  const bidSkip = unfillableBid(bids, deps.usdc);
  if (bidSkip) return { skip: bidSkip };
  const lotAssets = [...auction.lot.keys()];
  const lotBlocked = lotAssets.some((a) => a !== deps.usdc) ? conversionBlocker(deps) : undefined;
  if (lotBlocked) {
    deps.log(
      "info",
      "auction lot holds non-USDC assets that cannot be swapped in a flash: skipped",
      {
        user,
        lot: lotAssets.join(","),
        reason: blockerText(lotBlocked),
      },
    );
    return { skip: { kind: "lot_not_convertible", blocker: lotBlocked } };
  }
  const need = bids.get(deps.usdc) ?? 0n;
  const size = sizeFlash(need, await deps.availableCapital?.());
  if ("skip" in size) return size;
  if (size.short !== undefined) {
    deps.log("info", `vault capital short: filling ${size.percent}% of the auction`, {
      user,
      need: String(need),
      available: String(size.short),
    });
  }
  return { percent: size.percent, amount: size.amount, need, lotAssets };
}

/** The keeper account receives every lot asset: a trustline for each classic one that lacks it. */
async function ensureTrustlines(
  chain: ChainRpc,
  keypair: Keypair,
  lotAssets: readonly string[],
  user: string,
  deps: Pick<ExecuteDeps, "invoke" | "log">,
): Promise<void> {
  for (const a of lotAssets) {
    if ((await ensureTrustline(chain, keypair, a, deps.invoke)) === "created") {
      deps.log("info", `trustline created for lot asset ${a}`, { user });
    }
  }
}

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

/** One info line per swap that ran inside a settled flash. */
function logSwaps(log: ExecuteDeps["log"], legs: readonly PlannedLeg[], txHash: string): void {
  for (const l of legs) {
    log("info", `swapped seized ${l.path[0]} to USDC on ${l.venue} inside the flash`, {
      amount_in: String(l.amountIn),
      min_out: String(l.minOut),
      quote: String(l.quote),
      floor: String(l.floor),
      path: l.path.join(">"),
      tx_hash: txHash,
      failed_venues: l.failures.map((f) => `${f.venue}: ${f.error}`).join("; ") || undefined,
    });
  }
}

/** The names of the swap planner's errors that skip a liquidation. */
export type SwapErrorName = "ErrSlippageExceeded" | "ErrNoRoute";

/**
 * Step 1, ensure-auction: the user's open auction, or one created now (50 %, or the nearest
 * accepted percent). A skip when none may be created ({@link creationBlocker}) or it vanished in
 * a creation race. Reads the auction, then (only when creating) simulates and sends `new_auction`.
 */
export async function ensureAuction(
  chain: ChainRpc,
  keypair: Keypair,
  state: PoolState,
  task: LiquidationTask,
  deps: ExecuteDeps,
): Promise<{ auction: AuctionData } | { skip: SkipReason }> {
  const existing = await readAuction(chain, deps.poolId, task.user);
  if (existing) return { auction: existing };
  const blocked = creationBlocker(state, task.positions, deps);
  if (blocked) return { skip: blocked };
  const auction = await createAuction(chain, keypair, state, task, deps);
  return auction ? { auction } : { skip: { kind: "auction_vanished" } };
}

/**
 * Why no auction may be created for a position (pure): no debt; no USDC debt (vault capital is
 * USDC, so only USDC liabilities can be bid — a position without one is left alone rather than
 * auctioned at a fee and never filled); or a non-USDC lot that could not be converted inside the
 * flash. Undefined when one may be created.
 */
export function creationBlocker(
  state: Pick<PoolState, "reserveList">,
  positions: Pick<Positions, "liabilities" | "collateral">,
  deps: Pick<ExecuteDeps, "usdc" | "dex" | "routers">,
): SkipReason | undefined {
  if (positions.liabilities.size === 0) return { kind: "no_auction_no_debt" };
  if (!positions.liabilities.has(state.reserveList.indexOf(deps.usdc))) {
    return { kind: "usdc_only" };
  }
  const nonUsdcLot = [...positions.collateral.keys()].some((i) =>
    state.reserveList[i] !== deps.usdc
  );
  const blocker = nonUsdcLot ? conversionBlocker(deps) : undefined;
  return blocker ? { kind: "lot_not_convertible", blocker } : undefined;
}

/** What {@link targetBlock} needs besides the auction. */
export interface TargetInputs {
  /** MIN_PROFIT: the lot value / bid cost ratio a fill must clear. */
  minProfit: number;
  /** The next ledger (the earliest a transaction sent now can land in). */
  next: number;
  pollIntervalSec: number;
  /** The chain's pace estimate. */
  secondsPerLedger: number;
}

/**
 * Step 2, target block (pure): the first block whose lot value / bid cost clears MIN_PROFIT, or a
 * wait reason when there is none or it is more than one poll interval (plus a few ledgers for the
 * trustline transactions) away — so the next cycle never arrives too late to send the flash.
 */
export function targetBlock(
  state: PoolState,
  user: string,
  auction: AuctionData,
  inp: TargetInputs,
): { target: AuctionValue; next: number } | { wait: WaitReason } {
  const { next } = inp;
  const target = firstProfitableBlock(state, user, auction, inp.minProfit, next);
  const now = valueAt(state, user, auction, next);
  if (!target) return { wait: { kind: "never_profitable", ratioNow: finite(now.ratio) } };
  const maxWait = Math.ceil(inp.pollIntervalSec / inp.secondsPerLedger) + 3;
  if (target.block - next > maxWait) {
    return {
      wait: {
        kind: "too_early",
        auctionBlock: auction.block,
        targetBlock: target.block,
        ledgersToGo: target.block - next,
        ratioNow: finite(now.ratio),
        ratioAtTarget: finite(target.ratio),
      },
    };
  }
  return { target, next };
}

/**
 * A skip when the auction bids anything but USDC (pure): an auction someone else created may
 * bid other assets, which USDC capital cannot fill.
 */
export function unfillableBid(
  bids: ReadonlyMap<string, bigint>,
  usdc: string,
): SkipReason | undefined {
  for (const asset of bids.keys()) {
    if (asset !== usdc) return { kind: "usdc_only", bidAsset: asset };
  }
  return undefined;
}

/**
 * Step 3, size (pure): the flash amount for a USDC bid of `need` — the bid plus a 0.1 % buffer
 * for interest accrued until the fill (paid back with the rest). When `available` (the vault's
 * idle capital and per-flash cap; undefined = unknown) is short, the largest percent that fits
 * (`short` is then the available amount); a skip when not even 1 % fits.
 */
export function sizeFlash(
  need: bigint,
  available: bigint | undefined,
): { percent: number; amount: bigint; short?: bigint } | { skip: SkipReason } {
  const full = need + need / 1000n + 1n;
  if (available === undefined || full <= available) return { percent: 100, amount: full };
  const percent = Number((available * 100n) / full);
  if (percent < 1) return { skip: { kind: "insufficient_capital", need: full, available } };
  let amount = (need * BigInt(percent) + 99n) / 100n;
  amount += amount / 1000n + 1n;
  return { percent, amount, short: available };
}

/**
 * Step 5a: reads the keeper's account (its sequence number, so the latency-critical flash needs
 * no read), then waits for the ledger before `targetBlock`. A skip when the wait ended before it
 * (shutdown, or the chain slower than estimated): a fill now would land before the first
 * profitable block. Nothing was lent; a later cycle comes back.
 */
export async function awaitTarget(
  chain: ChainRpc,
  keeper: string,
  at: { targetBlock: number; next: number; spl: number },
  deps: Pick<ExecuteDeps, "clock" | "pollIntervalSec" | "signal">,
): Promise<{ account: Account; reached: number } | { skip: SkipReason }> {
  const { targetBlock, next, spl } = at;
  // Generous deadline (the pace estimate may be off); what matters is below: never fill early.
  const deadline = Date.now() +
    Math.max(2 * deps.pollIntervalSec, (targetBlock - next + 2) * spl * 2) * 1000 + 10_000;
  const account = await chain.server.getAccount(keeper);
  const reached = await waitForLedger(chain, targetBlock - 1, deadline, {
    clock: deps.clock,
    signal: deps.signal,
    pollMs: Math.max(20, Math.min(250, spl * 100)),
  });
  const skip = targetMissed(reached.sequence, targetBlock, deps.signal?.aborted ?? false);
  return skip ? { skip } : { account, reached: reached.sequence };
}

/** A skip when ledger `reached` is not the one before `targetBlock` or later (pure). */
export function targetMissed(
  reached: number,
  targetBlock: number,
  shutdown: boolean,
): SkipReason | undefined {
  return reached + 1 < targetBlock
    ? { kind: "target_not_reached", shutdown, targetBlock, latest: reached }
    : undefined;
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
  const requests = [
    request(RequestType.FillUserLiquidationAuction, f.user, BigInt(f.percent)),
    ...(repays ? [request(RequestType.Repay, f.usdc, f.amount)] : []),
    ...f.lotAssets.map((a) => request(RequestType.WithdrawCollateral, a, WITHDRAW_ALL)),
  ];
  // The repayment allowance the liquidator sets and clears inside the flash must name a ledger
  // the flash cannot outlive: far beyond the transaction's own validity window.
  const allowanceUntil = f.reachedLedger + ALLOWANCE_LEDGERS;
  const plan = liquidationPlan(f.pool, requests, f.legs, allowanceUntil);
  const auth = liquidationAuth({
    keeper: f.keeper,
    liquidator: f.liquidator,
    pool: f.pool,
    usdc: f.usdc,
    requests,
    repay: repays ? new Map([[f.usdc, f.amount]]) : new Map(),
    lotAssets: f.lotAssets,
    allowanceUntil,
  });
  return { requests, plan, auth };
}

/**
 * Step 5b, send: `vault.flash(liquidator, amount, plan, …)` with the prefetched account. When its
 * sequence number went stale (something else signed for this account: txBadSeq, nothing was
 * included) it is sent once more with a fresh one — not a retry of the flash.
 */
export async function sendFlash(
  vault: VaultClient,
  liquidator: string,
  amount: bigint,
  planned: PlannedFlash,
  responseTimeMs: number,
  account: Account,
): Promise<FlashOutcome> {
  const { plan, auth } = planned;
  try {
    return await vault.flash(liquidator, amount, plan, responseTimeMs, { account, auth });
  } catch (err) {
    if (!(err instanceof TxRejectedError && err.txCode === "txBadSeq")) throw err;
    return await vault.flash(liquidator, amount, plan, responseTimeMs, { auth });
  }
}

/** The filled {@link Result} of a settled flash (pure). */
export function filledResult(
  out: FlashOutcome,
  f: {
    user: string;
    percent: number;
    amount: bigint;
    responseTimeMs: number;
    auctionBlock: number;
    target: Pick<AuctionValue, "block" | "ratio">;
    swaps: number;
  },
): Result {
  return {
    drew: f.amount,
    proceeds: f.amount + out.profit,
    profit: out.profit,
    responseTimeMs: f.responseTimeMs,
    txHash: out.txHash,
    outcome: {
      status: "filled",
      user: f.user,
      percent: f.percent,
      auctionBlock: f.auctionBlock,
      fillLedger: out.ledger,
      targetBlock: f.target.block,
      ratio: finite(f.target.ratio),
      swaps: f.swaps,
    },
  };
}

/**
 * Step 5c, classify a failed flash (nothing moved: it reverted as a whole, or was never signed or
 * sent): a skip for an unprofitable simulation or a refused authorization ({@link refusedFlash});
 * otherwise the auction is read again and a lost race is returned when it is gone or was replaced
 * ({@link raceLost}); anything else is thrown.
 */
export async function classifyFlashFailure(
  chain: ChainRpc,
  err: unknown,
  c: { user: string; auction: AuctionData; poolId: string; responseTimeMs: number },
): Promise<Result> {
  const refused = refusedFlash(err);
  if (refused) return skipped(refused, c.user);
  let still: AuctionData | undefined;
  let readOk = true;
  try {
    still = await readAuction(chain, c.poolId, c.user);
  } catch {
    readOk = false;
  }
  if (raceLost(readOk, still, c.auction)) {
    // Another keeper filled first: our flash reverted as a whole (or was never sent).
    const outcome: TaskOutcome = { status: "lost_race", user: c.user, error: describeError(err) };
    return noCapitalResult(outcome, { responseTimeMs: c.responseTimeMs });
  }
  throw err;
}

/**
 * The skip for a flash refused before sending (pure): its simulated profit was not positive, or
 * it asked the keeper to authorize something it did not plan (a hostile pool, router or token;
 * nothing was signed, and the refusal was logged with its reason where it happened).
 */
export function refusedFlash(err: unknown): SkipReason | undefined {
  if (err instanceof FlashUnprofitableError) {
    return { kind: "unprofitable", simulatedProfit: err.simulatedProfit };
  }
  if (err instanceof UnexpectedAuthError) {
    return {
      kind: "auth_refused",
      refusal: err.reason,
      invocation: err.invocation,
      path: err.path,
    };
  }
  return undefined;
}

/**
 * True when a failed flash lost the race (pure): the auction, read back successfully, is gone or
 * started at another block than the one we planned on.
 */
export function raceLost(
  readOk: boolean,
  still: Pick<AuctionData, "block"> | undefined,
  ours: Pick<AuctionData, "block">,
): boolean {
  return readOk && (!still || still.block !== ours.block);
}

/**
 * Why a non-USDC lot could not be converted to USDC inside a flash (no DEX client, or no usable
 * venue among the flash policy's routers), or undefined when a usable venue exists.
 */
export function conversionBlocker(
  deps: Pick<ExecuteDeps, "dex" | "routers">,
): ConversionBlocker | undefined {
  if (!deps.dex) return "no_dex";
  return deps.dex.flashVenues(deps.routers).length === 0 ? "no_flash_venue" : undefined;
}

/**
 * One swap leg per non-USDC lot asset, sized at the target block for `percent` of the lot. The
 * legs run one after the other inside the flash, so each is quoted after the ones before it
 * (`keeper/dex/joint.ts`). When a later leg cannot clear its floor behind the others, the other
 * order is tried (the first leg then meets untouched pairs). Step 4a, before the wait: quotes,
 * venues and slippage floors, so nothing but the flash is left for the latency-critical moment.
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
    sv.u32(AuctionType.Liquidation),
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
      if (code === ContractErrorType.InvalidLiqTooLarge) return "large";
      if (code === ContractErrorType.InvalidLiqTooSmall) return "small";
      if (code === ContractErrorType.AuctionInProgress) return "exists";
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
    if (
      err instanceof ContractCallError && err.contractCode === ContractErrorType.AuctionInProgress
    ) {
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
function request(type: RequestType, address: string, amount: bigint) {
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
