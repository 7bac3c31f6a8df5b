import assert from "node:assert/strict";
import { nativeToScVal, xdr } from "@stellar/stellar-sdk";
import { type Ev, priceReplay, type ReplayServer, txIndexOf } from "./price_replay.ts";

const ORACLE = "CORACLE";
const XLM = "CXLM";
const USDC = "CUSDC";

/** An event id as stellar-rpc writes it: TOID (ledger, tx, op) and the event index. */
const idOf = (ledger: number, tx: number, i = 0) =>
  `${((BigInt(ledger) << 32n) | (BigInt(tx) << 12n)).toString().padStart(19, "0")}-${
    String(i).padStart(10, "0")
  }`;

/** An oracle `update` event as getEvents returns it. */
function update(ledger: number, tx: number, txHash: string, token: string, price: bigint) {
  const sym = (s: string) => xdr.ScVal.scvSymbol(s);
  return {
    id: idOf(ledger, tx),
    ledger,
    txHash,
    topic: [sym("REFLECTOR"), sym("update")],
    value: xdr.ScVal.scvVec([
      xdr.ScVal.scvVec([sym("Stellar"), nativeToScVal(token, { type: "string" })]),
      nativeToScVal(price, { type: "i128" }),
      nativeToScVal(0n, { type: "u64" }),
    ]),
  };
}

/** A fake RPC: the oracle's events, and each ledger's transactions. */
function server(
  events: ReturnType<typeof update>[],
  txs: Record<number, string[]>,
): ReplayServer & { txCalls: number } {
  const s = {
    txCalls: 0,
    getEvents: (req: { startLedger?: number; cursor?: string }) =>
      Promise.resolve(
        req.cursor
          ? { events: [], cursor: req.cursor }
          : { events: events.filter((e) => e.ledger >= req.startLedger!), cursor: "c1" },
      ),
    getTransactions: (req: { startLedger?: number }) => {
      s.txCalls++;
      const l = req.startLedger!;
      const list = (txs[l] ?? []).map((txHash) => ({ txHash, ledger: l }));
      return Promise.resolve({ transactions: [...list, { txHash: "next", ledger: l + 1 }] });
    },
  };
  return s as unknown as ReplayServer & { txCalls: number };
}

const fill = (ledger: number, tx: number): Ev => ({
  id: idOf(ledger, tx),
  name: "fill_auction",
  ledger,
  txHash: `fill${ledger}`,
  topics: [],
  value: null,
});

Deno.test("txIndexOf: the application order from an event id", () => {
  assert.equal(txIndexOf(idOf(1234, 7, 3)), 7);
  assert.equal(txIndexOf(idOf(5, 0xfffff)), 0xfffff);
});

Deno.test("priceReplay: a fill sees the writes applied before it in its ledger, not after; a direct write of the node counts before every transaction", async () => {
  const seed = { ledger: 9, prices: new Map([[XLM, 100n], [USDC, 1000n]]) };
  const events = [
    update(8, 1, "old", XLM, 1n), // before the seed: ignored
    update(10, 1, "w10", XLM, 110n),
    // Ledger 12: a transaction write before the fill (tx 1), one after it (tx 3), and a direct
    // write (its event listed after every transaction, its hash not among them).
    update(12, 1, "w12a", XLM, 120n),
    update(12, 3, "w12b", XLM, 130n),
    update(12, 4, "direct12", USDC, 999n),
  ];
  const s = server(events, { 12: ["w12a", "fill12", "w12b"] });
  const r = await priceReplay(s, ORACLE, seed);
  assert.deepEqual(r.atClose(9), seed.prices);
  assert.deepEqual(r.atClose(11), new Map([[XLM, 110n], [USDC, 1000n]]));
  assert.deepEqual(r.atClose(12), new Map([[XLM, 130n], [USDC, 999n]]));
  assert.deepEqual(await r.beforeEvent(fill(12, 2)), new Map([[XLM, 120n], [USDC, 999n]]));
  // A fill first in its ledger: only the direct write.
  assert.deepEqual(await r.beforeEvent(fill(12, 1)), new Map([[XLM, 110n], [USDC, 999n]]));
  // A fill in a ledger without writes: the prices at the previous close.
  assert.deepEqual(await r.beforeEvent(fill(11, 1)), new Map([[XLM, 110n], [USDC, 1000n]]));
  assert.equal(s.txCalls, 2, "each ledger's transactions read once");
  await r.beforeEvent(fill(12, 2));
  assert.equal(s.txCalls, 2);
});
