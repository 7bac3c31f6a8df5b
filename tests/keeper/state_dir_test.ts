/**
 * Borrowers beyond the RPC's retention window (issue 24), with real keeper processes: a keeper
 * run with KEEPER_STATE_DIR saves each pool's borrower index; after the chain moved past the
 * node's retention window (no event of the market's borrowers left), a keeper restarted with the
 * same directory still lists every borrower (their positions re-read from the chain), while one
 * started without it sees only what WATCH_ADDRESSES names. A corrupt file is a warning and a
 * rescan (then overwritten); a directory that cannot be written is one warning, and the keeper
 * carries on.
 */
import assert from "node:assert/strict";
import { networkDirName } from "@vigil/keeper/adapters/lending_pool/borrower_store";
import {
  keeperEnv,
  logLines,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  waitLog,
} from "@vigil/testing/keeper/keeper_fixture";

/** The node keeps this many ledgers of events (the world's setup and a keeper start fit). */
const RETENTION = 600;

async function positionsOf(url: string): Promise<{ user: string; liabilities_value: unknown }[]> {
  const res = await fetch(`${url}/api/state?positions=all&events=0`);
  return (await res.json()).positions;
}

/** The number of the keeper's last finished cycle (0 before the first). */
async function lastCycle(url: string): Promise<number> {
  const res = await fetch(`${url}/api/state?positions=0&events=0`);
  return (await res.json()).keeper.last_cycle?.number ?? 0;
}

Deno.test("KEEPER_STATE_DIR: a keeper restarted after the retention window still knows its borrowers; without it only WATCH_ADDRESSES", async () => {
  const w = await startWorld({ retentionLedgers: RETENTION });
  const dir = await Deno.makeTempDir({ prefix: "vigil-state-" });
  try {
    const borrowers = w.market.borrowers.map((b) => b.public).sort();
    const listsAll = async (url: string) => {
      const users = new Set((await positionsOf(url)).map((p) => p.user));
      return borrowers.every((b) => users.has(b));
    };
    const file = `${dir}/${networkDirName(w.node.networkPassphrase)}/${w.pool}.json`;

    // 1. A keeper with the state dir learns the borrowers from events and saves them.
    const one = await startKeeper(keeperEnv(w, w.keepers[0], { KEEPER_STATE_DIR: dir }));
    try {
      await until(() => listsAll(one.url), 30_000, "the first keeper to list every borrower");
      await until(() => Deno.stat(file).then(() => true, () => false), 10_000, "the state file");
      assert.ok(
        logLines(one.k).some((l) => String(l.msg).startsWith("no borrower state file yet")),
        "a missing file is a normal cold start",
      );
    } finally {
      await stopKeeper(one.k);
    }
    const saved = JSON.parse(await Deno.readTextFile(file));
    assert.deepEqual(
      borrowers.filter((b) => !saved.owners.includes(b)),
      [],
      "every borrower saved",
    );

    // 2. The chain moves on: every borrower's event, and the saved cursor, leave the window.
    await w.node.closeLedgers(RETENTION + 50);
    const health = await w.node.server.getHealth();
    const savedLedger = Number(BigInt(String(saved.cursor).split("-")[0]) >> 32n);
    assert.ok(
      savedLedger < health.oldestLedger,
      "the saved cursor is outside the retention window",
    );

    // 3. Restarted with the same dir: every borrower, positions read from the chain.
    const two = await startKeeper(keeperEnv(w, w.keepers[0], { KEEPER_STATE_DIR: dir }));
    try {
      await until(() => listsAll(two.url), 30_000, "the restarted keeper to list every borrower");
      const loaded = logLines(two.k).find((l) =>
        l.msg === "borrower state loaded: their positions are re-read from the chain"
      );
      assert.ok(loaded, "the state file was loaded");
      assert.ok(Number(loaded.owners) >= borrowers.length);
      assert.ok(
        logLines(two.k).some((l) =>
          l.level === "warn" && String(l.msg).startsWith("the event cursor is older than")
        ),
        "the stale cursor is warned about",
      );
      const rows = await positionsOf(two.url);
      assert.ok(
        rows.filter((r) => borrowers.includes(r.user)).every((r) => r.liabilities_value !== null),
        "positions come from the chain, with their values",
      );
      // Saved after the restarted sync; then, with nothing new, not rewritten every cycle.
      const savedAt = async () => JSON.parse(await Deno.readTextFile(file)).savedAt;
      const at = await savedAt();
      const c = await lastCycle(two.url);
      await until(async () => (await lastCycle(two.url)) >= c + 2, 20_000, "two more cycles");
      assert.equal(await savedAt(), at, "no change, no write");
    } finally {
      await stopKeeper(two.k);
    }

    // 4. A fresh keeper without the dir sees none of them — only the one it is told to watch.
    const watched = borrowers[0];
    const three = await startKeeper(keeperEnv(w, w.keepers[1], { WATCH_ADDRESSES: watched }));
    try {
      await until(
        async () => (await positionsOf(three.url)).some((p) => p.user === watched),
        30_000,
        "the watched borrower",
      );
      const users = (await positionsOf(three.url)).map((p) => p.user);
      assert.deepEqual(users.filter((u) => borrowers.includes(u)), [watched]);
    } finally {
      await stopKeeper(three.k);
    }

    // 5. A corrupt file: a warning and a rescan, never a crash; the next save replaces it.
    const corrupt = `${dir}/corrupt`;
    const corruptFile = `${corrupt}/${networkDirName(w.node.networkPassphrase)}/${w.pool}.json`;
    await Deno.mkdir(corruptFile.slice(0, corruptFile.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(corruptFile, '{"version":1,"owners":["G');
    const four = await startKeeper(
      keeperEnv(w, w.keepers[1], { KEEPER_STATE_DIR: corrupt, WATCH_ADDRESSES: watched }),
    );
    try {
      await waitLog(
        four.k,
        (l) =>
          l.level === "warn" &&
          String(l.msg).startsWith("borrower state file ignored (not valid JSON)"),
        30_000,
      );
      await until(
        async () => (await positionsOf(four.url)).some((p) => p.user === watched),
        30_000,
        "the watched borrower (corrupt file)",
      );
      await until(
        () => Deno.readTextFile(corruptFile).then((t) => JSON.parse(t).version === 1, () => false),
        10_000,
        "a valid file written over the corrupt one",
      );
    } finally {
      await stopKeeper(four.k);
    }

    // 6. A state dir that cannot be written (a file stands in its place): one warning, the keeper
    // carries on.
    const blocked = `${dir}/blocked`;
    await Deno.writeTextFile(blocked, "");
    const five = await startKeeper(
      keeperEnv(w, w.keepers[1], { KEEPER_STATE_DIR: blocked, WATCH_ADDRESSES: watched }),
    );
    try {
      await until(async () => (await lastCycle(five.url)) >= 3, 30_000, "three cycles");
      const warned = logLines(five.k).filter((l) =>
        l.level === "warn" && String(l.msg).startsWith("cannot write the borrower state file")
      );
      assert.equal(warned.length, 1, "warned once, not every cycle");
      assert.ok((await positionsOf(five.url)).some((p) => p.user === watched));
    } finally {
      const exit = await stopKeeper(five.k);
      assert.equal(exit.code, 0, "still running until stopped, and stopped cleanly");
    }
  } finally {
    await w.close();
    await Deno.remove(dir, { recursive: true });
  }
});
