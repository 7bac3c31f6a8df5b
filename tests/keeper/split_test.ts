/**
 * Issue 26, pooled keepers split the work: two registered keepers (child processes, real host,
 * real Blend Wasm) on one world. For each auction only its primary (the lowest
 * sha256(pool ‖ user ‖ auction block ‖ keeper)) sends a flash, while the other logs its backup
 * wait and loses no race. Then, for a fresh auction, its primary is stopped: the backup fills in
 * its place, no earlier than BACKUP_DELAY_LEDGERS after the first profitable block.
 */
import assert from "node:assert/strict";
import { openBorrower } from "@vigil/demo/market_driver";
import { BACKUP_DELAY_LEDGERS, rankKeepers } from "@vigil/keeper/adapters/lending_pool/split";
import {
  auctionOf,
  events,
  keeperEnv,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";

const REGISTERED = /registered in the keeper registry|AlreadyRegistered/;
const LOST = /auction already filled by another keeper/;

/** The first profitable block a keeper last logged for `user` (its "waiting" line), if any. */
function loggedTarget(k: KeeperChild, user: string): number | undefined {
  const l = logLines(k).findLast((l) =>
    l.msg === "lending_pool: waiting" && l.task === user && typeof l.target_block === "number"
  );
  return l?.target_block as number | undefined;
}

/**
 * Waits until a running keeper has priced `user`'s auction, then closes ledgers up to a few
 * before its first profitable block (the auction's curve takes ~200 ledgers to get there).
 */
async function nearTarget(w: World, ks: KeeperChild[], user: string): Promise<void> {
  const target = await until(
    () => Promise.resolve(ks.map((k) => loggedTarget(k, user)).find((t) => t !== undefined)),
    30_000,
    `a keeper's target block for ${user}`,
  );
  const gap = target - w.node.latestLedger().sequence - 14;
  if (gap > 0) await w.node.closeLedgers(gap);
}

/** The tx hashes of a keeper's "liquidation filled" lines. */
function filledTxs(k: KeeperChild): Set<string> {
  return new Set(
    logLines(k).filter((l) => String(l.msg).startsWith("liquidation filled"))
      .map((l) => String(l.tx_hash)),
  );
}

/** A keeper's backup-wait lines for `user` (`msg` chosen by `re`). */
function backupLines(k: KeeperChild, user: string, re: RegExp) {
  return logLines(k).filter((l) => re.test(String(l.msg)) && l.user === user);
}

Deno.test("pooled keepers split the work: only the primary fills, the backup waits; with the primary stopped the backup fills after its delay", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const addr = w.keepers.map((k) => k.publicKey());
  const ks: KeeperChild[] = [];
  try {
    // One after the other: registrations in one ledger conflict in the registry.
    for (const kp of w.keepers) {
      const { k } = await startKeeper(keeperEnv(w, kp));
      ks.push(k);
      await k.waitFor(REGISTERED, 30_000);
    }
    // −5 % XLM: borrower_xlm_1 and borrower_mixed go underwater.
    const price = BigInt((await shock(w, w.xlm, -500) as { price: string }).price);
    const created = await until(
      async () => {
        const e = await events(w, w.pool, "new_auction");
        return e.length >= 2 ? e : undefined;
      },
      60_000,
      "two auctions",
    );
    const users = [...new Set(created.map((e) => String(e.topics[2])))];
    assert.equal(users.length, created.length, "one auction per user (no duplicate creation)");
    const primaries = new Map<string, string>();
    for (const u of users) {
      const a = await auctionOf(w, u);
      assert.ok(a, `auction of ${u}`);
      const order = await rankKeepers({ pool: w.pool, user: u, auctionBlock: a.block }, addr);
      primaries.set(u, order[0]);
    }
    await nearTarget(w, ks, users[0]);
    const fills = await until(
      async () => {
        const f = await events(w, w.pool, "fill_auction");
        return users.every((u) => f.some((x) => String(x.topics[2]) === u)) ? f : undefined;
      },
      60_000,
      "both auctions filled",
    );
    await new Promise((r) => setTimeout(r, 1500)); // a stray backup flash would land by now
    // Each fill is its primary's flash; the other keeper sent none (it would have lost the race).
    let waits = 0;
    for (const u of users) {
      const p = addr.indexOf(primaries.get(u)!);
      const fill = fills.filter((f) => String(f.topics[2]) === u);
      assert.equal(fill.length, 1, `one fill for ${u}`);
      await until(
        () => Promise.resolve(filledTxs(ks[p]).has(fill[0].txHash)),
        10_000,
        `the primary's fill line for ${u}`,
      );
      const backup = backupLines(ks[1 - p], u, /^backup keeper: waiting for the primary keeper$/);
      for (const l of backup.filter((l) => l.step === "fill")) {
        assert.equal(l.primary, addr[p]);
        assert.equal(l.rank, 1);
        waits++;
      }
    }
    // A keeper busy filling one auction may reach the other only after its primary filled it
    // (then it has nothing to wait for); at least one backup wait is always seen.
    assert.ok(waits >= 1, "the backup logs its wait");
    for (const k of ks) assert.doesNotMatch(k.stderr(), LOST, "no lost race between them");

    // A fresh auction whose primary is then stopped: the backup fills in its place.
    const opened = await openBorrower(w.node, w.market, {
      token: "xlm",
      usd: 3_000,
      hf: 1_0100000n,
      prices: { ...w.market.prices, xlm: price },
    });
    const user = opened.address;
    await shock(w, w.xlm, -300);
    const auction = await until(() => auctionOf(w, user), 60_000, "the fresh auction");
    const order = await rankKeepers({ pool: w.pool, user, auctionBlock: auction.block }, addr);
    const p = addr.indexOf(order[0]);
    const r = 1 - p;
    await stopKeeper(ks[p]);
    const survivor = ks[r];
    await nearTarget(w, [survivor], user);
    const fill = await until(
      async () =>
        (await events(w, w.pool, "fill_auction")).find((f) => String(f.topics[2]) === user),
      60_000,
      "the backup's fill",
    );
    await until(
      () => Promise.resolve(filledTxs(survivor).has(fill.txHash)),
      10_000,
      "the backup's fill line",
    );
    const wait = backupLines(survivor, user, /^backup keeper: waiting for the primary keeper$/)
      .find((l) => l.step === "fill");
    assert.ok(wait, "the backup logged its wait");
    assert.equal(wait.primary, addr[p]);
    assert.equal(wait.rank, 1);
    const target = loggedTarget(survivor, user)!;
    // Its turn is BACKUP_DELAY_LEDGERS after the first profitable block (which interest accrual
    // may move by a ledger between the keeper's reads).
    const turn = Number(wait.ready_at);
    assert.ok(
      Math.abs(turn - BACKUP_DELAY_LEDGERS - target) <= 1,
      `turn ${turn}, target ${target}`,
    );
    assert.ok(
      fill.ledger >= Number(wait.ready_at),
      `filled at ${fill.ledger}, not before its turn`,
    );
    const stepIn = backupLines(survivor, user, /^backup keeper: the primary has not filled/);
    assert.ok(stepIn.length >= 1, "it says it fills in the primary's place");
    console.log(
      `backup filled ${
        user.slice(0, 6)
      } at ledger ${fill.ledger} (first profitable ${target}, turn ${wait.ready_at})`,
    );
  } catch (e) {
    for (const k of ks) {
      console.error(
        k.stderr().split("\n").filter((l) =>
          !l.includes('"level":"debug"') || /waiting|backup/.test(l)
        ).slice(-40).join("\n"),
      );
    }
    throw e;
  } finally {
    for (const k of ks) await stopKeeper(k);
    await w.close();
  }
});
