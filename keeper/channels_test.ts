import assert from "node:assert/strict";
import { Account, Keypair } from "@stellar/stellar-sdk";
import { liquidationConcurrency, LIQUIDATIONS_PER_CHANNEL } from "./startup.ts";
import {
  CHANNEL_FUNDING,
  CHANNEL_TOP_UP_BELOW,
  ChannelPool,
  deriveChannelKeypair,
  deriveChannels,
  fundingSteps,
  XLM,
  xlmString,
} from "./channels.ts";

// A fixed test seed (not a real account's).
const keeper = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 7));

Deno.test("channel keys: stable for a keeper, distinct per index and per keeper, never the keeper's", async () => {
  const a = await deriveChannels(keeper, 4);
  const again = await deriveChannels(keeper, 4);
  assert.deepEqual(a.map((k) => k.secret()), again.map((k) => k.secret()), "a restart reuses them");
  const ids = new Set([keeper.publicKey(), ...a.map((k) => k.publicKey())]);
  assert.equal(ids.size, 5, "distinct per index, none the keeper");
  const other = await deriveChannelKeypair(Keypair.fromRawEd25519Seed(Buffer.alloc(32, 8)), 0);
  assert.notEqual(other.publicKey(), a[0].publicKey(), "another keeper, other channels");
  assert.equal((await deriveChannelKeypair(keeper, 2)).publicKey(), a[2].publicKey());
  await assert.rejects(deriveChannelKeypair(keeper, -1), RangeError);
  await assert.rejects(deriveChannelKeypair(keeper, 1.5), RangeError);
});

Deno.test("funding: a missing channel is created with 10 XLM, a low one topped up to it, others left alone", () => {
  assert.equal(CHANNEL_FUNDING, 10n * XLM);
  assert.equal(CHANNEL_TOP_UP_BELOW, 4n * XLM);
  const steps = fundingSteps(
    new Map<string, bigint | undefined>([
      ["GMISSING", undefined],
      ["GLOW", 3n * XLM + 5n],
      ["GEDGE", CHANNEL_TOP_UP_BELOW],
      ["GFULL", 9n * XLM],
    ]),
  );
  assert.deepEqual(steps, [
    { kind: "create", account: "GMISSING", amount: 10n * XLM },
    { kind: "top_up", account: "GLOW", amount: 7n * XLM - 5n },
  ]);
  assert.deepEqual(fundingSteps(new Map([["GFULL", 10n * XLM]])), []);
  assert.deepEqual(
    fundingSteps(new Map([["G1", 1n * XLM]]), { funding: 5n * XLM, below: 2n * XLM }),
    [{ kind: "top_up", account: "G1", amount: 4n * XLM }],
  );
  assert.equal(xlmString(7n * XLM - 5n), "6.9999995");
  assert.equal(xlmString(10n * XLM), "10.0000000");
});

Deno.test("channel pool: only ready channels are handed out, one holder each; a release wakes a waiter", async () => {
  const [c0, c1] = await deriveChannels(keeper, 2);
  const pool = new ChannelPool([c0, c1]);
  assert.equal(pool.size, 0);
  assert.equal(await pool.acquire(), undefined, "none ready: the keeper's account sends");
  pool.markReady([c0.publicKey(), "GNOTOURS"]);
  assert.equal(pool.size, 1);
  const a = await pool.acquire();
  assert.equal(a?.keypair.publicKey(), c0.publicKey());
  let got: string | undefined;
  const waiting = pool.acquire().then((l) => (got = l?.keypair.publicKey()));
  await Promise.resolve();
  assert.equal(got, undefined, "all held: waits");
  a!.release();
  a!.release(); // twice is once
  await waiting;
  assert.equal(got, c0.publicKey());
  pool.markReady([c1.publicKey(), c0.publicKey()]);
  assert.equal(pool.size, 2);
  const b = await pool.acquire();
  assert.equal(b?.keypair.publicKey(), c1.publicKey());
});

Deno.test("channel pool: a channel's account is read once and kept (its sequence moves with each transaction); a failed send drops it", async () => {
  const [c0] = await deriveChannels(keeper, 1);
  const pool = new ChannelPool([c0]);
  pool.markReady([c0.publicKey()]);
  let reads = 0;
  const read = (a: string) => {
    reads++;
    return Promise.resolve(new Account(a, "100"));
  };
  const first = (await pool.acquire())!;
  const acct = await first.account(read);
  acct.incrementSequenceNumber(); // what building a transaction on it does
  first.release();
  const second = (await pool.acquire())!;
  assert.equal((await second.account(read)).sequenceNumber(), "101", "the kept copy, advanced");
  assert.equal(reads, 1);
  second.release(true); // its send failed: the copy may be ahead of the chain
  const third = (await pool.acquire())!;
  assert.equal((await third.account(read)).sequenceNumber(), "100", "read again");
  assert.equal(reads, 2);
  third.release();
});

Deno.test("liquidationConcurrency: one at a time without channels, LIQUIDATIONS_PER_CHANNEL per channel, at most 16", () => {
  assert.equal(liquidationConcurrency(0), 1);
  assert.equal(liquidationConcurrency(1), LIQUIDATIONS_PER_CHANNEL);
  assert.equal(liquidationConcurrency(2), 2 * LIQUIDATIONS_PER_CHANNEL);
  assert.equal(liquidationConcurrency(16), 16);
});
