/**
 * Fill latency in ledgers on the market scenario with the ledger clock running: the keeper
 * (a real `main.ts keeper` child over JSON-RPC) creates the auctions after a price shock and
 * fills them; for each fill this prints how many ledgers after the auction's first profitable
 * block (first block whose lot value / bid cost clears MIN_PROFIT, valued independently with
 * the Blend SDK) the fill transaction landed. Target: 0.
 *
 * `deno run -A bench/fill_latency_bench.ts [ledgerMs=250] [rounds=1]`
 *
 * @module
 */
import { Auction, type AuctionData, PoolV2 } from "@blend-capital/blend-sdk";
import {
  events,
  keeperEnv,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  untilEvents,
} from "@vigil/testing/keeper/keeper_fixture";

const MIN_PROFIT = 1.02;
const LEDGER_MS = Number(Deno.args[0] ?? 250);

function auctionDataOf(v: unknown): AuctionData {
  const [, raw] = v as [
    number,
    { bid: Record<string, bigint>; lot: Record<string, bigint>; block: number },
  ];
  return {
    bid: new Map(Object.entries(raw.bid)),
    lot: new Map(Object.entries(raw.lot)),
    block: Number(raw.block),
  } as AuctionData;
}

/** Lot value / bid cost of `data` filled 100 % at `block` (Blend SDK valuation). */
async function ratioAt(
  rpcUrl: string,
  passphrase: string,
  pool: string,
  user: string,
  data: AuctionData,
  block: number,
): Promise<number> {
  const p = await PoolV2.load({ rpc: rpcUrl, passphrase, opts: { allowHttp: true } }, pool);
  const oracle = await p.loadOracle();
  const [scaled] = new Auction(user, 0, data).scale(block, 100);
  let lot = 0, bid = 0;
  for (const [a, b] of scaled.data.lot) {
    lot += p.reserves.get(a)!.toAssetFromBTokenFloat(b) * oracle.getPriceFloat(a)!;
  }
  for (const [a, d] of scaled.data.bid) {
    bid += p.reserves.get(a)!.toAssetFromDTokenFloat(d) * oracle.getPriceFloat(a)!;
  }
  return lot / bid;
}

const w = await startWorld({ ledgerMs: LEDGER_MS });
let k;
try {
  await shock(w, w.xlm, -1500);
  k = (await startKeeper(keeperEnv(w, w.keepers[0]))).k;
  const created = await untilEvents(w, w.pool, "new_auction", 2, 60_000);
  await w.node.closeLedgers(150);
  await until(
    async () => {
      // One `flash` event per liquidation (draw, fill and repay in one transaction).
      const evs = await events(w, w.vault, "flash");
      return evs.length >= 2 ? evs : undefined;
    },
    120_000,
    "two vault flash events",
  );
  const fills = (await events(w, w.pool, "fill_auction")).sort((a, b) => a.ledger - b.ledger);
  const rows: string[] = [];
  for (const f of fills) {
    const user = String(f.topics[2]);
    const data = auctionDataOf(created.find((c) => c.topics[2] === user)!.value);
    // The ratio rises with the block: binary search the first profitable one.
    let lo = data.block, hi = f.ledger;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const r = await ratioAt(w.node.rpcUrl, w.node.networkPassphrase, w.pool, user, data, mid);
      if (r >= MIN_PROFIT) hi = mid;
      else lo = mid + 1;
    }
    rows.push(
      `auction of ${user.slice(0, 6)}…: created block ${data.block}, first profitable ${lo}, ` +
        `filled in ledger ${f.ledger} → ${
          f.ledger - lo
        } ledger(s) after the first profitable block`,
    );
  }
  console.log(`ledger clock ${LEDGER_MS} ms per ledger (1 s of ledger time each)`);
  for (const r of rows) console.log(r);
} finally {
  if (k) await stopKeeper(k);
  await w.close();
}
