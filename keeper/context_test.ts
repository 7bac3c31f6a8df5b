import assert from "node:assert/strict";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { liquidationSentence, logFormat } from "./context.ts";
import type { LiquidationRecord } from "./state.ts";

const USER = Keypair.random().publicKey();
const POOL = StrKey.encodeContract(new Uint8Array(32).fill(3));
const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;

function rec(over: Partial<LiquidationRecord>): LiquidationRecord {
  return {
    id: 1,
    adapter: "lending_pool",
    pool: POOL,
    user: USER,
    outcome: "filled",
    drew: 2_000_000_000n,
    proceeds: 4_052_145_678n,
    profit: 2_052_145_678n,
    responseTimeMs: 1200,
    txHash: "ab".repeat(32),
    ledger: 10,
    auctionBlock: 5,
    time: new Date(0),
    note: null,
    keeper: Keypair.random().publicKey(),
    keeperName: "keeper-1",
    ...over,
  };
}

Deno.test("liquidationSentence: one plain line per outcome, races worded as races", () => {
  assert.equal(
    liquidationSentence(rec({})),
    `keeper-1 filled ${short(USER)} on pool ${short(POOL)}: +205.21 USDC in 1 flash`,
  );
  assert.equal(
    liquidationSentence(rec({ outcome: "lost_race", profit: 0n, note: "ContractCallError …" })),
    `keeper-1 lost the race for ${short(USER)} on pool ${
      short(POOL)
    } to another keeper (our flash reverted, nothing lent)`,
  );
  assert.equal(
    liquidationSentence(
      rec({ outcome: "failed", profit: 0n, pool: null, note: "simulation failed" }),
    ),
    `keeper-1 could not liquidate ${short(USER)}: simulation failed`,
  );
  assert.match(
    liquidationSentence(rec({ note: "profit below the vault's min_fill_profit 10000000" })),
    /: \+205\.21 USDC in 1 flash \(profit below the vault's min_fill_profit 10000000\)$/,
  );
});

Deno.test("logFormat: LOG_FORMAT wins; else text on a terminal, JSON on a pipe", () => {
  assert.equal(logFormat("json", () => true), "json");
  assert.equal(logFormat("text", () => false), "text");
  assert.equal(logFormat(null, () => true), "text");
  assert.equal(logFormat(null, () => false), "json");
  assert.equal(
    logFormat(null, () => {
      throw new Error("no stderr");
    }),
    "json",
  );
});
