/**
 * Executing one user liquidation on a Blend v2 pool, in ONE transaction (issue 12). Deciding is
 * kept apart from sending: {@link executeLiquidation} calls one small exported step after the
 * other, each in its own module and tested alone beside it:
 *
 * 1. ensure-auction (`auction_create.ts`: `ensureAuction`, `creationBlocker`, `choosePercent`):
 *    use the user's open liquidation auction, or create one at 50 %. If the pool rejects 50 % for
 *    the health band (`InvalidLiqTooLarge` / `InvalidLiqTooSmall`), binary-search by simulation
 *    for the nearest accepted percent on the side the error points to (then `BAND_MARGIN` points
 *    inward when accepted), and log it.
 * 2. target block (`target_block.ts`: `targetBlock`): value the auction on Blend's 400-block curve
 *    with the pool's oracle and find the first block whose lot_value / bid_cost clears
 *    MIN_PROFIT. If that block is further away than one poll interval, stop (outcome "waiting"):
 *    a later cycle comes back.
 * 3. size (`flash_size.ts`: `sizeLiquidation`, `sizeFlash`, `buyAmountOut`): the bid amount plus
 *    a 0.1 % buffer for interest accrued until the fill (paid back with the rest); a non-USDC bid
 *    (issue 24) is bought with USDC, its exact output the bid plus a margin; when the vault's idle
 *    capital or the per-flash cap is short, fill a smaller percent that fits. Non-USDC lot and bid
 *    assets need the DEX client (without one the auction is skipped with a log line) and a
 *    trustline, made as soon as the auction is seen (step 1), not at the target block.
 * 4. plan (`flash_plan.ts`: `planLegs`, `planBuys`, `priceSwaps`, `planLiquidation`): one buy leg
 *    per non-USDC bid asset (`router_get_amounts_in`, best venue and path; `max_in` from the quote
 *    and SLIPPAGE_BPS, never above the oracle ceiling), one Blend `submit` (fill, repay the bid,
 *    withdraw the lot) and one swap per non-USDC lot or bought asset on a Soroswap-ABI router of
 *    the vault's flash policy, each with the oracle-based slippage floor as `min_out` (all quoted
 *    before the wait, buys first: they run first); with buys, both legs are priced and the
 *    liquidation skipped when it no longer clears MIN_PROFIT after them; and the authorization
 *    shape the keeper may sign. The flash amount covers the USDC bid and every buy's `max_in`.
 * 5. send (`flash_send.ts`: `landAndSend`, `awaitLanding`, `sendFlash`, `classifyFlashFailure`):
 *    wait for the block before the target; from a few ledgers before it (`REVALUE_LEDGERS`), at
 *    every new ledger re-read the reserves and oracle prices in force and re-value
 *    (`target_block.ts`: `revalue`): the target follows the prices both ways, and the flash goes
 *    only when the landing ledger (the next one) clears MIN_PROFIT. Then `vault.flash(keeper,
 *    liquidator, amount, plan, response_time_ms)` simulates first and sends only when the
 *    simulated profit after fees is positive; the transaction lands in the first profitable
 *    block. The plan carries MIN_PROFIT (`min_ratio_bps`): the liquidator refuses a fill below
 *    it at the prices in force when it executes (issue 26); refused in simulation that is "not
 *    yet" and the wait resumes from the next ledger (`landAndSend`). The fill records how many
 *    ledgers after the first profitable block (from that block's prices) it landed
 *    (`ledgers_after_first_profitable`). With channel accounts (`deps.channels`,
 *    CHANNEL_ACCOUNTS) the flash is sent from one leased for the send alone, so liquidations
 *    wait for their ledgers side by side.
 *
 * Failure handling: nothing is ever outstanding. A lost race (the auction is gone or was replaced
 * when our simulation or transaction fails) is outcome "lost_race"; an unprofitable simulation is
 * "skipped" (with a typed skip reason); any other failure throws. In every case the flash reverted
 * as a whole, so the vault lent nothing and booked nothing — a crash or `kill -9` at any point
 * costs it nothing either.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import { latestLedger } from "@vigil/soroban/ledger";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { PlannedBuy, PlannedLeg } from "../../dex/swap_client.ts";
import { ensureTrustline } from "../../token.ts";
import { noCapitalResult, type Result, skipped, type VaultClient } from "../adapter.ts";
import { conversionBlocker, ensureAuction } from "./auction_create.ts";
import type { ExecuteDeps, LiquidationTask } from "./execute_deps.ts";
import { sizeLiquidation, usdcPart } from "./flash_size.ts";
import { planLegs, planLiquidation } from "./flash_plan.ts";
import { valueAt } from "./auction.ts";
import {
  awaitLanding,
  classifyFlashFailure,
  filledResult,
  landAndSend,
  sendFlash,
} from "./flash_send.ts";
import { loadPoolState } from "./pool_state.ts";
import {
  firstProfitableSeen,
  type Reading,
  retryAfterMs,
  revalue,
  targetBlock,
  waitWindowLedgers,
} from "./target_block.ts";
import type { WaitReason } from "../outcome.ts";

// The names this module has always exported, for its importers.
export { DEBT_NOT_BUYABLE, NO_DEX, NO_FLASH_VENUE } from "../outcome.ts";
export type { AuctionValue } from "./auction.ts";
export {
  BAND_MARGIN,
  choosePercent,
  DEFAULT_AUCTION_PERCENT,
  PoolErrors,
  type Probe,
} from "./auction_create.ts";
export type { ExecuteDeps, LiquidationTask } from "./execute_deps.ts";
export { ALLOWANCE_LEDGERS, liquidationPlan, oracleRefValue } from "./flash_plan.ts";

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
  // Every asset the fill may leave in the keeper account needs a trustline, made now, while the
  // auction is young: made at the target block, it would cost the fill a ledger or more. (No
  // flash venue: a non-USDC asset is a skip at sizing, and nothing is made for it.)
  const received = [...new Set([...auction.lot.keys(), ...auction.bid.keys()])];
  await ensureTrustlines(
    chain,
    keypair,
    conversionBlocker(deps) === undefined ? received : received.filter((a) => a === deps.usdc),
    user,
    deps,
  );

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
  const windowLedgers = waitWindowLedgers(deps.pollIntervalSec, spl);
  /** A waiting outcome, with when the cycle may execute it again. */
  const waiting = (reason: WaitReason) =>
    noCapitalResult({ status: "waiting", reason }, {
      retryAfterMs: retryAfterMs(reason, windowLedgers, spl),
    });
  if ("wait" in decided) return waiting(decided.wait);
  const { target, next } = decided;
  // Pooled keepers split the work (split.ts): a backup waits for its turn, or for a later cycle.
  const turn = await deps.awaitTurn?.(auction, target.block, next, spl);
  if (turn) return noCapitalResult({ status: "waiting", reason: turn });

  // 3. The flash amount, for the bid of the next ledger: the target follows the prices while the
  // keeper waits and may come earlier, and the bid only shrinks with the block.
  const t0 = performance.now();
  const sizeAt = { ...target, bid: valueAt(state, user, auction, next).bid };
  const size = await sizeLiquidation(state, auction, sizeAt, user, deps);
  if ("skip" in size) return skipped(size.skip);
  const { need, lotAssets } = size;

  // 4. The buys and swaps are planned (quotes, venue, slippage bounds) and priced before
  // waiting, so nothing but the flash itself is left for the latency-critical moment.
  const swaps = await planLegs(chain, state, target, size, user, deps);
  if ("skip" in swaps) return skipped(swaps.skip, user);
  const { legs, buys } = swaps;
  // The DEX's depth may have cut the part of the auction filled (`fitToDepth`).
  const percent = swaps.percent;
  const usdcAmount = percent === size.percent ? size.amount : usdcPart(need, percent);
  // The flash lends the buys' USDC too (what they do not spend goes back to the vault).
  const amount = buys.reduce((s, b) => s + b.maxIn, usdcAmount);
  if (buys.length > 0) {
    const available = await deps.availableCapital?.();
    if (available !== undefined && amount > available) {
      return skipped({ kind: "insufficient_capital", need: amount, available }, user);
    }
  }

  // 5. Wait for the block before the target, re-valuing at every ledger from a few before it
  // (prices move while the keeper waits), then send the flash into the ledger that clears.
  const readings: Reading[] = [{ landing: next, state }];
  // The target may slide later with the prices, but not past what this cycle set out to wait for.
  const latestTarget = next + windowLedgers;
  const revalueAt = async (head: number) => {
    const now = await loadPoolState(chain, deps.poolId, deps.cache);
    readings.push({ landing: head + 1, state: now });
    return revalue(now, user, auction, {
      minProfit: deps.minProfit,
      landing: head + 1,
      latestTarget,
    });
  };
  let responseTimeMs = 0;
  // With channels the flash's source is leased at the send (below): the wait reads no account.
  const viaChannel = (deps.channels?.size ?? 0) > 0;
  let channel: string | undefined;
  // For the fill's log line: how long the send waited for a free channel, and the head it was
  // decided at (it lands in the next ledger at the earliest).
  let channelWaitMs = 0;
  let decidedAt: number | undefined;
  const sent = await landAndSend(
    { targetBlock: target.block, next },
    latestTarget,
    (at) => awaitLanding(chain, viaChannel ? undefined : me, { ...at, spl }, revalueAt, deps),
    async (landing) => {
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
        buys,
        reachedLedger: landing.reached,
        minProfit: deps.minProfit,
      });
      // Safe to send even when the lease waited for a busy channel past the landing ledger: the
      // liquidator checks MIN_PROFIT at execution and the vault the repayment.
      const asked = performance.now();
      const lease = viaChannel ? await deps.channels!.acquire() : undefined;
      channelWaitMs = Math.round(performance.now() - asked);
      decidedAt = landing.reached;
      let failed = true;
      try {
        const account = lease
          ? await lease.account((a) => chain.server.getAccount(a))
          : landing.account ?? await chain.server.getAccount(me);
        responseTimeMs = Math.round(performance.now() - t0);
        const out = await sendFlash(
          vault,
          deps.liquidator,
          amount,
          planned,
          responseTimeMs,
          account,
          lease?.keypair,
        );
        failed = false;
        channel = lease?.keypair.publicKey();
        return out;
      } finally {
        lease?.release(failed);
      }
    },
    deps.log,
    user,
  );
  if ("skip" in sent) return skipped(sent.skip, user);
  if ("wait" in sent) return waiting(sent.wait);
  if ("error" in sent) {
    return await classifyFlashFailure(chain, sent.error, {
      user,
      auction,
      poolId: deps.poolId,
      responseTimeMs,
    }, deps.log);
  }
  const { out, landing: waited } = sent;
  const firstProfitable = firstProfitableSeen(readings, user, auction, deps.minProfit);
  deps.touched?.(user, me);
  logBuys(deps.log, buys, out.txHash);
  logSwaps(deps.log, legs, out.txHash);
  const result = filledResult(out, {
    user,
    percent,
    amount,
    responseTimeMs,
    auctionBlock: auction.block,
    target: waited.value,
    swaps: legs.length,
    firstProfitable,
  });
  if (result.outcome.status === "filled") {
    const late = result.outcome.ledgersAfterFirstProfitable;
    deps.log("info", `fill landed ${late ?? "?"} ledger(s) after the first profitable block`, {
      user,
      fill_ledger: out.ledger,
      first_profitable_block: firstProfitable,
      ledgers_after_first_profitable: late,
      ratio: result.outcome.ratio,
      tx_hash: out.txHash,
      channel,
      channel_wait_ms: channelWaitMs,
      decided_at: decidedAt,
    });
  }
  // A part of the auction (the vault's capital or the DEX's depth was short): the rest is still
  // on offer, profitable already and more so each ledger, and the capital the flash lent is back
  // in the vault. The cycle runs the task again at once (it lands in the next ledger).
  if (percent < 100) return { ...result, retryAfterMs: 0 };
  return result;
}

/**
 * The keeper account receives every lot asset and every bought bid asset (its leftover is refunded
 * there): a trustline for each classic one that lacks it. The keeper never removes one, so an
 * asset checked once (`deps.trusted`) is not read again. (The keeper's own transactions go one at
 * a time whatever runs beside: withSourceLock.)
 */
async function ensureTrustlines(
  chain: ChainRpc,
  keypair: Keypair,
  assets: readonly string[],
  user: string,
  deps: Pick<ExecuteDeps, "invoke" | "log" | "trusted">,
): Promise<void> {
  for (const a of assets) {
    if (deps.trusted?.has(a)) continue;
    if ((await ensureTrustline(chain, keypair, a, deps.invoke)) === "created") {
      deps.log("info", `trustline created for auction asset ${a}`, { user });
    }
    deps.trusted?.add(a);
  }
}

/** One info line per buy that ran inside a settled flash. */
function logBuys(log: ExecuteDeps["log"], buys: readonly PlannedBuy[], txHash: string): void {
  for (const b of buys) {
    log(
      "info",
      `bought bid asset ${b.path[b.path.length - 1]} with USDC on ${b.venue} inside the flash`,
      {
        amount_out: String(b.amountOut),
        max_in: String(b.maxIn),
        quote: String(b.quote),
        ceiling: String(b.ceiling),
        path: b.path.join(">"),
        tx_hash: txHash,
        failed_venues: b.failures.map((f) => `${f.venue}: ${f.error}`).join("; ") || undefined,
      },
    );
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
