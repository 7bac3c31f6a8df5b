/**
 * Crashes and fee exhaustion with the keeper as a real child process, after issue 12 (one
 * `vault.flash` transaction per liquidation, nothing outstanding between transactions):
 * - SIGKILL at random points while the keeper creates auctions, waits for the profitable block
 *   and sends its flashes, restarted each time: the vault's books and balance stay exact, no
 *   transaction takes USDC out without putting at least as much back, the keeper's USDC is
 *   untouched, and the restarted keeper still liquidates;
 * - native fee balance exhausted: the flash cannot be sent, nothing is lent or booked; once fees
 *   are back the keeper fills;
 * - SIGTERM while waiting for the profitable block: exit 0, nothing outstanding.
 *
 * The old recovery path (`recoverStaleDraw`) is gone: there is nothing left to recover.
 */
import assert from "node:assert/strict";
import { Asset, type Keypair, Operation, TransactionBuilder, type xdr } from "@stellar/stellar-sdk";
import {
  balance,
  calledFunction,
  events,
  keeperEnv,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  vaultState,
  waitLog,
  type World,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import { TxPendingError, TxRejectedError } from "@vigil/soroban/errors";
import { sendAndConfirm } from "@vigil/soroban/send";

const STAKE = 100n * 10_000_000n;

function dump(k: KeeperChild | undefined) {
  if (k) {
    console.error(
      k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-40).join("\n"),
    );
  }
}

/** The vault holds exactly its books, nothing is out, and every outflow came back in its tx. */
async function assertVaultWhole(w: World, before: { total_usdc: bigint; total_profit: bigint }) {
  const st = await vaultState(w);
  assert.equal(st.active_liq, 0n, "nothing outstanding");
  assert.equal(await balance(w, w.usdc, w.vault), st.total_usdc, "vault balance = books");
  assert.ok(st.total_usdc >= before.total_usdc, "the vault lost USDC");
  assert.equal(st.total_usdc - before.total_usdc, st.total_profit - before.total_profit);
  const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault);
  assert.deepEqual(audit.violations, [], "a transaction took USDC out without returning it");
  let flashProfit = 0n;
  for (const f of await events(w, w.vault, "flash")) flashProfit += (f.value as bigint[])[2];
  assert.equal(st.total_profit - before.total_profit, flashProfit, "profit = Σ flash profit");
  return { st, audit };
}

Deno.test("kill -9 at random points while liquidating: the vault loses nothing, the restarted keeper fills", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  // A fixed seed keeps the run reproducible; the kill points still land all over the flow.
  let seed = 12;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const kills: number[] = [];
  try {
    const before = await vaultState(w);
    const usdcStart = await balance(w, w.usdc, keeper.publicKey());
    await shock(w, w.xlm, -500); // borrower_xlm_1 and borrower_mixed underwater
    for (let i = 0; i < 6; i++) {
      ({ k } = await startKeeper(keeperEnv(w, keeper)));
      if (i === 1) await w.node.closeLedgers(150); // into the profitable part of the curve
      const ms = Math.round(rand() * 2500);
      kills.push(ms);
      await new Promise((r) => setTimeout(r, ms));
      await stopKeeper(k, "SIGKILL");
      k = undefined;
      await assertVaultWhole(w, before);
    }
    // Restarted for good: it liquidates (no stale state to clear first).
    ({ k } = await startKeeper(keeperEnv(w, keeper)));
    await until(async () => (await events(w, w.vault, "flash")).length >= 1, 90_000, "a flash");
    await stopKeeper(k, "SIGKILL");
    k = undefined;
    const { audit } = await assertVaultWhole(w, before);
    assert.ok(audit.outflows >= 1);
    // The keeper's own USDC moved only by the stake: a flash repays every unit it produced.
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcStart - STAKE);
    console.log(`kill points (ms after start): ${kills.join(", ")}; flashes: ${audit.outflows}`);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

/** True when `env` is a transaction whose one operation calls `vault.flash`. */
function isFlash(env: xdr.TransactionEnvelope, vault: string): boolean {
  const call = calledFunction(env);
  return call?.contract === vault && call.fn === "flash";
}

/**
 * Waits for `done`, skipping the dead part of the Dutch curve: the auction's lot only grows to its
 * full size 200 blocks after it opens, and that wait need not be real time. Ledgers are closed in
 * small steps until the newest auction is 150 blocks old, then the node's own ledgers (250 ms)
 * run: a keeper's transaction is valid for a few ledgers after its simulation (5 through a
 * channel), and a test closing ~100 ledgers a second would make every send arrive too late
 * (`txTooLate`), which no real network does.
 */
async function fastForward(w: World, done: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${what}`);
    const opened = (await events(w, w.pool, "new_auction")).map((e) => e.ledger);
    const newest = opened.length > 0 ? Math.max(...opened) : undefined;
    const latest = (await w.node.server.getLatestLedger()).sequence;
    if (newest === undefined || latest - newest < FAST_FORWARD_BLOCKS) {
      await w.node.closeLedgers(5);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Blocks of a new auction skipped by {@link fastForward}: short of its profitable part. */
const FAST_FORWARD_BLOCKS = 150;

Deno.test("kill -9 the moment the node accepted the keeper's flash: it lands or not, the vault loses nothing, the restart fills", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  const chain = w.node.chain;
  const submit = chain.submit.bind(chain);
  let killedAfter: string | undefined;
  try {
    const before = await vaultState(w);
    const usdcStart = await balance(w, w.usdc, keeper.publicKey());
    // The kill point is exact: inside the node's sendTransaction, right after it queued the
    // keeper's first flash and before the keeper could read the reply or poll for the result.
    chain.submit = (env, b64) => {
      const out = submit(env, b64);
      if (!killedAfter && k && out.status === "PENDING" && isFlash(env, w.vault)) {
        killedAfter = out.hash;
        k.child.kill("SIGKILL");
      }
      return out;
    };
    await shock(w, w.xlm, -500);
    ({ k } = await startKeeper(keeperEnv(w, keeper)));
    await fastForward(
      w,
      () => Promise.resolve(killedAfter !== undefined),
      "the keeper's first flash",
    );
    await k.finish();
    k = undefined;
    // The queued flash settles (or fails) without the keeper: either way the vault is whole.
    await w.node.closeLedgers(2);
    const landed = await w.node.server.getTransaction(killedAfter!);
    const first = await assertVaultWhole(w, before);
    assert.equal(first.audit.outflows, landed.status === "SUCCESS" ? 1 : 0);
    // Restarted: no stale state to clear, it keeps liquidating.
    chain.submit = submit;
    ({ k } = await startKeeper(keeperEnv(w, keeper)));
    const want = first.audit.outflows + 1;
    await fastForward(w, async () => (await events(w, w.vault, "flash")).length >= want, "a flash");
    await stopKeeper(k, "SIGKILL");
    k = undefined;
    await assertVaultWhole(w, before);
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcStart - STAKE);
    console.log(`killed after sending flash ${killedAfter}: ${landed.status}`);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    chain.submit = submit;
    if (k) await stopKeeper(k);
    await w.close();
  }
});

/**
 * Sends everything above the keeper's minimum balance away, signed by the keeper's key. The
 * running keeper may have a transaction of its own in flight (an auction, a trustline): the node
 * then answers TRY_AGAIN_LATER (one transaction per source account in the queue, as the network
 * does; soroban's send path re-sends it) or ours fails on a stale sequence number: retried with a
 * fresh account.
 */
async function drainNative(w: World, keeper: Keypair): Promise<void> {
  const server = w.node.server;
  const deadline = Date.now() + 20_000;
  for (let attempt = 1;; attempt++) {
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
    let last: string;
    try {
      // A short wall-clock net: an envelope overtaken by the keeper's own transaction (stale
      // sequence number) would otherwise be polled until its 60 s bound.
      const r = await sendAndConfirm({ server }, tx, { pollIntervalMs: 25, pollTimeoutMs: 10_000 });
      if (!r.failed) return;
      last = `FAILED ${r.failed.opCode ?? ""}`;
    } catch (e) {
      if (!(e instanceof TxRejectedError || e instanceof TxPendingError)) throw e;
      last = e.message;
    }
    if (Date.now() > deadline) {
      throw new Error(`drain not applied after ${attempt} attempts (last: ${last})`);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
}

Deno.test("native fee balance exhausted: the flash is never sent, nothing lent or booked; funded again, it fills", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const before = await vaultState(w);
    await shock(w, w.xlm, -500);
    // The keeper's own account pays the flash's fee: no channel accounts (they would pay it
    // from their own XLM, which this test does not drain).
    ({ k } = await startKeeper(keeperEnv(w, keeper, { CHANNEL_ACCOUNTS: "0" })));
    await until(async () => (await events(w, w.pool, "new_auction")).length > 0, 60_000, "auction");
    await drainNative(w, keeper);
    await w.node.closeLedgers(150);
    // The flash cannot pay its fee: the execute fails, and nothing happened on chain.
    await waitLog(k, (l) => /execute failed/.test(String(l.msg)), 60_000);
    assert.equal((await events(w, w.pool, "fill_auction")).length, 0);
    assert.equal((await events(w, w.vault, "flash")).length, 0);
    await assertVaultWhole(w, before);
    assert.deepEqual(await vaultState(w), before);
    // Fees are back: a later cycle fills, in one flash.
    await w.node.fund(keeper.publicKey(), 100n);
    await until(async () => (await events(w, w.vault, "flash")).length >= 1, 60_000, "a flash");
    const { st } = await assertVaultWhole(w, before);
    assert.ok(st.total_profit > before.total_profit);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("SIGTERM while waiting for the profitable block: exit 0, nothing outstanding", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const before = await vaultState(w);
    await shock(w, w.xlm, -500);
    ({ k } = await startKeeper(keeperEnv(w, keeper)));
    await until(async () => (await events(w, w.pool, "new_auction")).length > 0, 60_000, "auction");
    await w.node.closeLedgers(120);
    await new Promise((r) => setTimeout(r, 500));
    const out = await stopKeeper(k, "SIGTERM");
    k = undefined;
    assert.equal(out.code, 0, out.stderr.slice(-3000));
    assert.doesNotMatch(out.stderr, /abandoning the cycle in progress/);
    assert.match(out.stderr, /keeper stopped/);
    await assertVaultWhole(w, before);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});
