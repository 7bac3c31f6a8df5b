/**
 * DEX conversion inside the liquidator's flash (issue 12), with the keeper as a child process:
 * - primary router transient failure (its quote fails) and a fallback router the vault's flash
 *   policy does not list (the market's default policy) → skipped: no venue is usable inside the
 *   flash: nothing filled, lent or booked;
 * - the same failure with the fallback (a second Soroswap-ABI deployment) listed in the policy →
 *   the lot is swapped on the fallback inside the flash and the auction is filled;
 * - quote below the slippage floor → no fallback, no flash: nothing filled, lent or booked;
 * - no DEX configured with non-USDC collateral → skipped with a log line: no auction, no flash.
 * The held-collateral path is gone: a lot that cannot be sold is never seized.
 */
import assert from "node:assert/strict";
import {
  balance,
  events,
  keeperEnv,
  keeperInfo,
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

/** Shocks XLM so borrower_xlm_1 (XLM collateral, USDC debt) is underwater and fast-forwards. */
async function liquidateOne(w: World, env: Record<string, string>, fill = true) {
  const user = w.market.borrowers.find((b) => b.name === "borrower_xlm_1")!.public;
  // −5 %: borrower_xlm_1 → HF ≈ 0.98 (borrower_mixed, HF 1.02 with XLM in its collateral, may
  // go under too).
  await shock(w, w.xlm, -500);
  const { k } = await startKeeper(env);
  await until(async () => (await events(w, w.pool, "new_auction")).length > 0, 60_000, "auction");
  await w.node.closeLedgers(150);
  if (fill) {
    await until(async () => (await events(w, w.pool, "fill_auction")).length > 0, 90_000, "fill");
  }
  return { k, user };
}

function dump(k: KeeperChild | undefined) {
  if (!k) return;
  console.error(
    k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-40).join("\n"),
  );
}

Deno.test("DEX: a transient primary failure and a fallback outside the flash policy — skipped; nothing filled, lent or booked", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    await w.node.invoke(w.market.contracts.primary_dex_router, "set_fault", {
      mode: { tag: "Transient", values: [0] }, // fails every call until cleared
    }, { source: w.market.accounts.market_admin.public });
    const before = await vaultState(w);
    const usdcBefore = await balance(w, w.usdc, keeper.publicKey());
    const xlmLot = w.market.borrowers.find((b) => b.name === "borrower_xlm_1")!;
    ({ k } = await liquidateOne(w, keeperEnv(w, keeper), false));
    const skip = await waitLog(
      k,
      (l) =>
        /no venue usable inside the flash answered: skipped/.test(String(l.msg)) &&
        l.user === xlmLot.public, // liquidations run side by side: any order
      60_000,
    );
    assert.equal(skip.user, xlmLot.public);
    const text = k.stderr();
    // The primary's quote failed (a transient venue error); the fallback, not in the vault's
    // flash policy, was never asked (announced once at start-up, listed in the no-route reason).
    assert.match(text, /DEX venue failed: primary \(soroswap\)/);
    assert.match(text, /DEX venue fallback \(soroswap\) is not used inside a flash: router not in/);
    assert.match(
      String(skip.error),
      /fallback \(soroswap\): router not in the vault's flash policy/,
    );
    assert.doesNotMatch(text, /DEX venue failed: fallback/);
    assert.doesNotMatch(text, /swapped seized/);
    // Nothing was filled, lent or booked; the keeper's USDC is only its stake lighter.
    assert.equal((await events(w, w.pool, "fill_auction")).length, 0);
    assert.equal((await events(w, w.vault, "flash")).length, 0);
    assert.deepEqual(await vaultState(w), before);
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcBefore - 100n * 10_000_000n);
    const info = await keeperInfo(w, keeper.publicKey());
    assert.equal(BigInt(info.total_executions as bigint), 0n);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("DEX: a transient primary failure and the fallback in the flash policy — the lot is swapped on the fallback inside the flash, the auction filled", async () => {
  const w = await startWorld({
    ledgerMs: 250,
    beforeVigil: (_node, market) =>
      Promise.resolve({
        routers: [market.contracts.primary_dex_router, market.contracts.fallback_dex_router],
      }),
  });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    await w.node.invoke(w.market.contracts.primary_dex_router, "set_fault", {
      mode: { tag: "Transient", values: [0] },
    }, { source: w.market.accounts.market_admin.public });
    const fallback = w.market.contracts.fallback_dex_router;
    ({ k } = await liquidateOne(w, keeperEnv(w, keeper)));
    await waitLog(
      k,
      (l) => /swapped seized .* on fallback \(soroswap\) inside the flash/.test(String(l.msg)),
      60_000,
    );
    const text = k.stderr();
    assert.match(text, /DEX venue failed: primary \(soroswap\)/);
    // The fallback router's swap event is the flash's: the liquidator paid out to itself.
    const swaps = async (router: string) =>
      (await events(w, router, "SoroswapRouter")).filter((e) => e.topics[1] === "swap");
    assert.ok((await swaps(fallback)).length >= 1, "a swap on the fallback router");
    assert.equal((await swaps(w.market.contracts.primary_dex_router)).length, 0);
    assert.ok((await events(w, w.vault, "flash")).length >= 1);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("DEX: a quote below the slippage floor stops — no fallback, no flash, nothing booked", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    // The primary quotes at half price: far below oracle value × (1 − 1 %).
    await w.node.invoke(w.market.contracts.primary_dex_router, "set_fault", {
      mode: { tag: "Skew", values: [5000] },
    }, { source: w.market.accounts.market_admin.public });
    const before = await vaultState(w);
    const usdcBefore = await balance(w, w.usdc, keeper.publicKey());
    ({ k } = await liquidateOne(w, keeperEnv(w, keeper), false));
    await waitLog(k, (l) => /lot cannot be converted to USDC/.test(String(l.msg)), 60_000);
    const text = k.stderr();
    assert.match(text, /ErrSlippageExceeded/);
    assert.doesNotMatch(text, /on fallback \(soroswap\)/);
    assert.doesNotMatch(text, /DEX venue failed: fallback/);
    // Nothing was filled, lent or booked; the keeper holds no seized collateral.
    assert.equal((await events(w, w.pool, "fill_auction")).length, 0);
    assert.equal((await events(w, w.vault, "flash")).length, 0);
    assert.deepEqual(await vaultState(w), before);
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcBefore - 100n * 10_000_000n);
    const info = await keeperInfo(w, keeper.publicKey());
    assert.equal(BigInt(info.total_executions as bigint), 0n);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("no DEX configured and non-USDC collateral: skipped with a log line, no auction, no flash", async () => {
  const w = await startWorld({ ledgerMs: 250 });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const before = await vaultState(w);
    await shock(w, w.xlm, -500);
    ({ k } = await startKeeper(
      keeperEnv(w, keeper, { PRIMARY_DEX_ROUTER: "", FALLBACK_DEX_ROUTER: "" }),
    ));
    await waitLog(k, (l) => /only USDC lots can be filled/.test(JSON.stringify(l)), 60_000);
    const text = k.stderr();
    assert.doesNotMatch(text, /DEX swap client ready/);
    assert.doesNotMatch(text, /swapped seized/);
    assert.equal((await events(w, w.pool, "new_auction")).length, 0);
    assert.equal((await events(w, w.vault, "flash")).length, 0);
    assert.deepEqual(await vaultState(w), before);
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});
