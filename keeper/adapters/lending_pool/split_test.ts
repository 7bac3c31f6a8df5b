import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { BACKUP_DELAY_LEDGERS, CREATION_BLOCK, rankKeepers, rankKey, turnOf } from "./split.ts";

const addr = (i: number) => Keypair.fromRawEd25519Seed(new Uint8Array(32).fill(i + 1)).publicKey();
const keepers = [0, 1, 2, 3].map(addr);
const pool = "CDLZFC3SYJYDZT7K67VZ75HPJVIEUVNIXF47ZG2FB2RMQQVU2HHGCYSC";
const key = { pool, user: addr(9), auctionBlock: 1234 };

Deno.test("rankKey: sha256 of pool ‖ user ‖ u32be(block) ‖ keeper", async () => {
  const enc = new TextEncoder();
  const block = new Uint8Array([0, 0, 0x04, 0xd2]);
  const bytes = new Uint8Array([
    ...enc.encode(pool),
    ...enc.encode(key.user),
    ...block,
    ...enc.encode(keepers[0]),
  ]);
  const want = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  assert.deepEqual(await rankKey(key, keepers[0]), want);
});

Deno.test("rankKeepers: every keeper gets the same order whatever order it read the list in", async () => {
  const a = await rankKeepers(key, keepers);
  const b = await rankKeepers(key, [...keepers].reverse());
  const c = await rankKeepers(key, [keepers[2], keepers[0], keepers[3], keepers[1], keepers[0]]);
  assert.deepEqual(b, a);
  assert.deepEqual(c, a);
  assert.deepEqual(new Set(a), new Set(keepers));
  // Each keeper computes its own turn: exactly one primary, ranks 0..n-1, one shared primary.
  const turns = await Promise.all(keepers.map((k) => turnOf(key, keepers, k, 100)));
  assert.deepEqual(turns.map((t) => t.rank).sort(), [0, 1, 2, 3]);
  assert.deepEqual(new Set(turns.map((t) => t.primary)).size, 1);
  for (const t of turns) assert.deepEqual(t.readyAt, 100 + t.rank * BACKUP_DELAY_LEDGERS);
});

Deno.test("rankKeepers: the primary changes with the auction (the work is spread)", async () => {
  const primaries = new Set<string>();
  for (let block = 1; block <= 40; block++) {
    primaries.add((await rankKeepers({ ...key, auctionBlock: block }, keepers))[0]);
  }
  assert.deepEqual(primaries.size, keepers.length);
  assert.notDeepEqual(
    await rankKeepers({ ...key, auctionBlock: CREATION_BLOCK }, keepers),
    [],
  );
});

Deno.test("turnOf: a keeper missing from the list is skipped; one that is not listed comes last", async () => {
  const order = await rankKeepers(key, keepers);
  const gone = order[0]; // the would-be primary deregistered
  const rest = keepers.filter((k) => k !== gone);
  const next = await turnOf(key, rest, order[1], 50);
  assert.deepEqual(next, { rank: 0, primary: order[1], readyAt: 50 });
  // The missing keeper itself (its list is a read old) waits behind every listed keeper.
  assert.deepEqual(await turnOf(key, rest, gone, 50), {
    rank: 3,
    primary: order[1],
    readyAt: 50 + 3 * BACKUP_DELAY_LEDGERS,
  });
});

Deno.test("turnOf: one keeper (or an empty list) is always the primary", async () => {
  for (let block = 0; block < 10; block++) {
    const k = { ...key, auctionBlock: block };
    assert.deepEqual(await turnOf(k, [keepers[1]], keepers[1], 7), {
      rank: 0,
      primary: keepers[1],
      readyAt: 7,
    });
    assert.deepEqual(await turnOf(k, [], keepers[1], 7), {
      rank: 0,
      primary: keepers[1],
      readyAt: 7,
    });
  }
});
