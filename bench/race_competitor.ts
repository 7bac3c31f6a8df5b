/**
 * The race bench's competitor: a liquidation bot written from the Blend auctioneer bot's
 * PUBLISHED rules only (none of its code): it fills a user-liquidation auction at the first block
 * whose lot value / bid value at oracle prices is at least 1.02, re-values every 2 s, uses one
 * account and no flash loan — it pays the bid from its own USDC/XLM/WETH inventory and fills
 * with one pool `submit(fill, repay, withdraw)`. It sends through the SDK's plain path
 * (simulate, sign, send, poll), like a bot outside Vigil would.
 *
 * Not part of the product: only `bench/race_bench.ts` uses it.
 *
 * @module
 */
import {
  Contract,
  type Keypair,
  rpc,
  scValToNative,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import type { AuctionData } from "@blend-capital/blend-sdk";
import { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import {
  bidAmounts,
  lotAmounts,
  readAuction,
  valueAt,
} from "@vigil/keeper/adapters/lending_pool/auction";
import {
  loadPoolState,
  type PoolCache,
  type PoolState,
} from "@vigil/keeper/adapters/lending_pool/pool_state";

/** Blend's request types used by a filler (Blend v2 `RequestType`). */
const FILL_USER_LIQUIDATION = 6;
const REPAY = 5;
const WITHDRAW_COLLATERAL = 3;

/** Options of {@link startCompetitor}. */
export interface CompetitorOptions {
  rpcUrl: string;
  networkPassphrase: string;
  pool: string;
  keypair: Keypair;
  /** The bot's profit rule (default 1.02). */
  minProfit?: number;
  /** Re-valuation interval (default 2000 ms). */
  intervalMs?: number;
  /** Inclusion fee bid in stroops (default 10 000, Vigil's default ceiling). */
  inclusionFee?: number;
  log?: (line: string) => void;
}

/** A running competitor. */
export interface Competitor {
  readonly stats: { cycles: number; sent: number; filled: number; failed: number };
  stop(): Promise<void>;
}

/** Starts the competitor's 2 s loop. */
export function startCompetitor(opts: CompetitorOptions): Competitor {
  const chain = new ChainRpc(opts.rpcUrl, { networkPassphrase: opts.networkPassphrase });
  const server = new rpc.Server(opts.rpcUrl, { allowHttp: true });
  const minProfit = opts.minProfit ?? 1.02;
  const intervalMs = opts.intervalMs ?? 2000;
  const log = opts.log ?? (() => {});
  const me = opts.keypair.publicKey();
  const cache: PoolCache = {};
  const users = new Set<string>();
  const stats = { cycles: 0, sent: 0, filled: 0, failed: 0 };
  let cursorLedger: number | undefined;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> = Promise.resolve();

  /** New auctions since the last cycle, from the pool's events. */
  async function discover(head: number): Promise<void> {
    const start = cursorLedger ?? Math.max(1, head - 10);
    const r = await server.getEvents({
      filters: [{ type: "contract", contractIds: [opts.pool] }],
      startLedger: start,
      limit: 1000,
    });
    for (const e of r.events) {
      const topics = e.topic.map((t) => scValToNative(t));
      if (topics[0] === "new_auction" && Number(topics[1]) === 0) users.add(String(topics[2]));
    }
    cursorLedger = head + 1;
  }

  async function fill(
    state: PoolState,
    user: string,
    auction: AuctionData,
    block: number,
  ): Promise<void> {
    const v = valueAt(state, user, auction, block);
    if (!(v.ratio >= minProfit)) return;
    const requests: xdr.ScVal[] = [req(FILL_USER_LIQUIDATION, user, 100n)];
    // Repay a little more than the bid (interest until inclusion); Blend refunds the excess.
    for (const [asset, amt] of bidAmounts(state, v)) {
      requests.push(req(REPAY, asset, amt + amt / 200n + 1n));
    }
    // Withdraw more than the lot: Blend caps a withdrawal at the position.
    for (const [asset, amt] of lotAmounts(state, v)) {
      requests.push(req(WITHDRAW_COLLATERAL, asset, amt * 2n + 1n));
    }
    const account = await server.getAccount(me);
    const tx = new TransactionBuilder(account, {
      fee: String(opts.inclusionFee ?? 10_000),
      networkPassphrase: opts.networkPassphrase,
    })
      .addOperation(
        new Contract(opts.pool).call(
          "submit",
          sv.address(me),
          sv.address(me),
          sv.address(me),
          sv.vec(requests),
        ),
      )
      .setTimeout(30)
      .build();
    stats.sent++;
    try {
      const prepared = await server.prepareTransaction(tx);
      prepared.sign(opts.keypair);
      const sent = await server.sendTransaction(prepared);
      if (sent.status !== "PENDING") throw new Error(`send ${sent.status}`);
      for (let i = 0; i < 120; i++) {
        const got = await server.getTransaction(sent.hash);
        if (got.status === "SUCCESS") {
          stats.filled++;
          log(`filled ${user.slice(0, 6)}… in ledger ${got.ledger} (ratio ${v.ratio.toFixed(4)})`);
          users.delete(user);
          return;
        }
        if (got.status === "FAILED") throw new Error("transaction failed");
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error("not confirmed");
    } catch (e) {
      stats.failed++;
      log(`fill of ${user.slice(0, 6)}… failed: ${String(e instanceof Error ? e.message : e)}`);
    }
  }

  async function cycle(): Promise<void> {
    stats.cycles++;
    const head = (await server.getLatestLedger()).sequence;
    await discover(head);
    if (users.size === 0) return;
    const state = await loadPoolState(chain, opts.pool, cache);
    for (const user of [...users]) {
      if (stopped) return;
      const auction = await readAuction(chain, opts.pool, user);
      if (!auction) {
        users.delete(user);
        continue;
      }
      // The first block whose ratio clears the rule, valued now: fill once it has come.
      const next = head + 1;
      if (valueAt(state, user, auction, next).ratio >= minProfit) {
        await fill(state, user, auction, next);
      }
    }
  }

  const loop = () => {
    if (stopped) return;
    const started = Date.now();
    running = cycle().catch((e) => {
      log(`cycle error: ${e instanceof Error ? e.message : e}`);
    }).finally(() => {
      if (!stopped) timer = setTimeout(loop, Math.max(0, intervalMs - (Date.now() - started)));
    });
  };
  timer = setTimeout(loop, 0);

  return {
    stats,
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
      chain.close();
    },
  };
}

/** A Blend `Request { address, amount, request_type }`. */
function req(type: number, address: string, amount: bigint): xdr.ScVal {
  return sv.struct({
    address: sv.address(address),
    amount: sv.i128(amount),
    request_type: sv.u32(type),
  });
}
