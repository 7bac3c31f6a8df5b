/**
 * Issue 26, pooled keepers split the work: two registered keepers (child processes, real host,
 * real Blend Wasm) on one world. For each auction its primary (the lowest
 * sha256(pool ‖ user ‖ auction block ‖ keeper)) sends the flash while the other logs its backup
 * wait; the backup steps in only when the primary, busy with the other auction, has not filled
 * by the backup's turn (then a race between the two flashes is the only one allowed). Then, for a fresh auction, its primary is stopped: the backup fills in
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
  untilEvents,
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
    const created = await untilEvents(w, w.pool, "new_auction", 2, 60_000);
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
    // Each auction is filled once. A fill is its primary's flash, or — when the primary was still
    // busy with the other auction at the backup's turn — the backup's, after its logged step-in
    // and not before its turn. Nobody sends into an auction whose primary is on time.
    let waits = 0;
    let primaryFills = 0;
    const steppedIn = new Set<string>();
    for (const u of users) {
      const p = addr.indexOf(primaries.get(u)!);
      const fill = fills.filter((f) => String(f.topics[2]) === u);
      assert.equal(fill.length, 1, `one fill for ${u}`);
      const { filler } = await until(
        () => {
          const i = ks.findIndex((k) => filledTxs(k).has(fill[0].txHash));
          return Promise.resolve(i >= 0 ? { filler: i } : undefined); // index 0 is falsy
        },
        10_000,
        `a keeper's fill line for ${u}`,
      );
      const backup = backupLines(ks[1 - p], u, /^backup keeper: waiting for the primary keeper$/)
        .filter((l) => l.step === "fill");
      for (const l of backup) {
        assert.equal(l.primary, addr[p]);
        assert.equal(l.rank, 1);
        waits++;
      }
      if (filler === p) {
        primaryFills++;
        continue;
      }
      // The backup filled: only after saying so, and not before its turn.
      const stepIn = backupLines(ks[filler], u, /^backup keeper: the primary has not filled/);
      assert.ok(stepIn.length >= 1, `the backup of ${u} says it steps in`);
      const turn = backup.find((l) => l.step === "fill");
      assert.ok(turn, `the backup of ${u} logged its turn`);
      assert.ok(fill[0].ledger >= Number(turn.ready_at), `${u} filled before the backup's turn`);
      steppedIn.add(u);
    }
    assert.ok(primaryFills >= 1, "at least one auction is filled by its primary");
    assert.ok(waits >= 1, "the backup logs its wait");
    // A lost race can only follow a step-in: the backup's flash and the busy primary's late one
    // meet in the auction, and one of them loses.
    const anyStepIn = new Set(
      ks.flatMap((k) =>
        logLines(k).filter((l) => /^backup keeper: the primary has not filled/.test(String(l.msg)))
          .map((l) => String(l.user))
      ),
    );
    for (const k of ks) {
      for (const l of logLines(k).filter((l) => LOST.test(String(l.msg)))) {
        assert.ok(anyStepIn.has(String(l.user)), `a lost race on ${l.user} with no step-in`);
      }
    }
    console.log(
      `split: ${primaryFills} of ${users.length} auctions filled by their primary, ${steppedIn.size} by the backup`,
    );

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
