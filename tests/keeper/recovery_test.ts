/**
 * Stateless recovery with the keeper as a real child process:
 * - SIGKILL after the draw and before the return: the restarted keeper returns the stale draw
 *   in its first cycle;
 * - native fee balance exhausted mid-fill: the draw stays outstanding, the keeper logs it, and
 *   recovery returns it once fees are available again;
 * - SIGTERM between a draw and its settlement: the cycle in progress settles the draw (fill and
 *   return, or the draw given back) before the process exits 0.
 */
import assert from "node:assert/strict";
import { Asset, type Keypair, Operation, TransactionBuilder } from "@stellar/stellar-sdk";
import {
  balance,
  events,
  keeperEnv,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  vaultState,
  waitLog,
  type World,
} from "./keeper_fixture.ts";
import type { KeeperChild } from "./keeper_process.ts";

const drawOf = (w: World, keeper: string) =>
  w.node.view<bigint>(w.vault, "get_keeper_draw", { keeper });

/** Starts the keeper on an underwater borrower and returns once its draw is outstanding. */
async function untilDrawn(w: World, keeper: Keypair): Promise<{ k: KeeperChild; drawn: bigint }> {
  await shock(w, w.xlm, -500); // borrower_xlm_1 underwater
  const { k } = await startKeeper(keeperEnv(w, keeper));
  await until(async () => (await events(w, w.pool, "new_auction")).length > 0, 60_000, "auction");
  await w.node.closeLedgers(150);
  let drawn = 0n;
  const deadline = Date.now() + 60_000;
  while (drawn === 0n) {
    if (Date.now() > deadline) throw new Error("no draw");
    drawn = BigInt(await drawOf(w, keeper.publicKey()));
    if (drawn === 0n) await new Promise((r) => setTimeout(r, 10));
  }
  return { k, drawn };
}

function dump(k: KeeperChild | undefined) {
  if (k) {
    console.error(
      k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-40).join("\n"),
    );
  }
}

Deno.test("SIGKILL after the draw: the restarted keeper recovers the stale draw in its first cycle", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  let k2: KeeperChild | undefined;
  try {
    const usdcStart = await balance(w, w.usdc, keeper.publicKey());
    const got = await untilDrawn(w, keeper);
    k = got.k;
    await stopKeeper(k, "SIGKILL");
    const drawn = got.drawn;
    // Killed between draw and return: the draw is outstanding and the USDC is in the keeper's hands.
    assert.equal(BigInt(await drawOf(w, keeper.publicKey())), drawn);
    assert.equal((await vaultState(w)).active_liq, drawn);
    assert.equal((await events(w, w.pool, "fill_auction")).length, 0, "killed before the fill");
    const returnsBefore = (await events(w, w.vault, "return")).length;
    // Restart: the first cycle returns USDC on hand capped at the outstanding draw. The first
    // cycle runs at start-up and the next one only POLL_INTERVAL (300 s) later, far beyond the
    // 30 s wait: a recovery seen within it can only be the first cycle's.
    ({ k: k2 } = await startKeeper(keeperEnv(w, keeper, { POLL_INTERVAL: "300" })));
    const line = await waitLog(k2, (l) => String(l.msg).startsWith("recovered stale draw"), 30_000);
    assert.equal(line.returned, String(drawn));
    const ret = (await events(w, w.vault, "return"))[returnsBefore];
    const [amount, d, profit, loss] = ret.value as bigint[];
    assert.equal(amount, drawn);
    assert.equal(d, drawn);
    assert.equal(profit, 0n);
    assert.equal(loss, 0n);
    // Recovery came first: it precedes any new draw of the restarted keeper.
    const msgs = logLines(k2).map((l) => String(l.msg));
    const iRecover = msgs.findIndex((m) => m.startsWith("recovered stale draw"));
    const iFill = msgs.findIndex((m) => m.startsWith("liquidation filled"));
    assert.ok(iFill === -1 || iRecover < iFill);
    // Nothing lost: after recovery (and any later liquidation) the keeper paid only the stake.
    await until(async () => BigInt(await drawOf(w, keeper.publicKey())) === 0n, 30_000, "no draw");
    const usdcEnd = await balance(w, w.usdc, keeper.publicKey());
    assert.ok(usdcEnd >= usdcStart - 100n * 10_000_000n, "keeper lost USDC beyond the stake");
  } catch (e) {
    dump(k2 ?? k);
    throw e;
  } finally {
    if (k2) await stopKeeper(k2);
    await w.close();
  }
});

/** Sends everything above the keeper's minimum balance away, signed by the keeper's key. */
async function drainNative(w: World, keeper: Keypair): Promise<void> {
  const server = w.node.server;
  const entry = await server.getAccountEntry(keeper.publicKey());
  const minBalance = (2n + BigInt(entry.numSubEntries)) * 5_000_000n;
  const fee = 100n;
  const spendable = BigInt(entry.balance) - minBalance - fee;
  const account = await server.getAccount(keeper.publicKey());
  const tx = new TransactionBuilder(account, {
    fee: String(fee),
    networkPassphrase: w.node.networkPassphrase,
  }).addOperation(Operation.payment({
    destination: w.market.accounts.market_admin.public,
    asset: Asset.native(),
    amount: (Number(spendable) / 1e7).toFixed(7),
  })).setTimeout(60).build();
  tx.sign(keeper);
  const sent = await server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING");
  await until(
    async () => (await server.getTransaction(sent.hash)).status === "SUCCESS",
    10_000,
    "drain",
  );
}

Deno.test("native fee balance exhausted mid-fill: draw outstanding and logged, recovered once fees return", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const got = await untilDrawn(w, keeper);
    k = got.k;
    await drainNative(w, keeper);
    // The fill (and the attempt to give the draw back) fail for lack of fees; the keeper says so.
    await waitLog(k, (l) => /left outstanding/.test(String(l.msg)), 30_000);
    assert.equal((await events(w, w.pool, "fill_auction")).length, 0);
    // Following cycles: recovery keeps failing (no fees), capital tasks are skipped, draw stays.
    await waitLog(k, (l) => /capital are skipped/.test(String(l.msg)), 30_000);
    assert.equal(BigInt(await drawOf(w, keeper.publicKey())), got.drawn);
    assert.equal((await vaultState(w)).active_liq, got.drawn);
    // Fees are back: the next cycle's recovery returns the draw.
    const returnsBefore = (await events(w, w.vault, "return")).length;
    await w.node.fund(keeper.publicKey(), 100n);
    const line = await waitLog(k, (l) => String(l.msg).startsWith("recovered stale draw"), 30_000);
    assert.equal(line.returned, String(got.drawn));
    const ret = (await events(w, w.vault, "return"))[returnsBefore];
    const [amount, d, profit, loss] = ret.value as bigint[];
    assert.equal(amount, got.drawn);
    assert.equal(d, got.drawn);
    assert.equal(profit, 0n);
    assert.equal(loss, 0n);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("SIGTERM with a draw outstanding: the keeper settles it before exiting 0", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const before = await vaultState(w);
    const got = await untilDrawn(w, keeper);
    k = got.k;
    // Stop at once, between the draw and its settlement: the fill in progress either completes
    // (and returns its proceeds) or gives the draw back; nothing is left for recovery.
    const out = await stopKeeper(k, "SIGTERM");
    assert.equal(out.code, 0, out.stderr.slice(-3000));
    assert.doesNotMatch(out.stderr, /abandoning the cycle in progress/);
    assert.match(out.stderr, /keeper stopped/);
    assert.equal(BigInt(await drawOf(w, keeper.publicKey())), 0n, "draw left outstanding");
    const after = await vaultState(w);
    assert.equal(after.active_liq, 0n);
    const returns = await events(w, w.vault, "return");
    assert.ok(returns.length >= 1, "the draw was settled by a return");
    for (const r of returns) {
      const [, drawn, , loss] = r.value as bigint[];
      assert.ok(drawn > 0n);
      assert.equal(loss, 0n, "no loss booked");
    }
    // The vault gained exactly what was booked as profit (0 when the draw was given back).
    assert.equal(after.total_usdc - before.total_usdc, after.total_profit - before.total_profit);
    assert.ok(after.total_usdc >= before.total_usdc);
    k = undefined;
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});
