/**
 * The keeper against the vault's flash policy (issue 12 follow-up), as a real child process over
 * JSON-RPC:
 * - a policy that does not list the keeper's LENDING_POOL: a clear warning (once), every
 *   liquidation skipped with the reason, no auction created, nothing lent or booked; the admin
 *   lists the pool — a widening change, queued for the policy delay (issue 20): the keeper
 *   notes it (log, API) and keeps skipping until it applies, then (re-reading the policy) fills;
 * - a queued policy that would de-list the keeper's pool: one warning naming applies_at, the
 *   API's pending_changes field; once it applies, liquidations are skipped;
 * - SLIPPAGE_BPS above the policy's max_slippage_bps: a start-up warning;
 * - a policy that lists no router: no venue usable inside a flash, skipped before any auction.
 */
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import {
  applyQueued,
  balance,
  events,
  keeperEnv,
  keeperInfo,
  logLines,
  shock,
  startKeeper,
  startWorld,
  stopKeeper,
  until,
  USDC,
  vaultState,
  waitLog,
} from "@vigil/testing/keeper/keeper_fixture";
import type { KeeperChild } from "@vigil/testing/keeper/keeper_process";
import { flashPolicyProblem } from "./lending_pool/lending_pool_adapter.ts";

function dump(k: KeeperChild | undefined) {
  if (!k) return;
  console.error(
    k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-40).join("\n"),
  );
}

/** Some other contract id (a pool the vault's admin listed instead of ours). */
const otherPool = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as Buffer);

Deno.test("flash policy without the keeper's LENDING_POOL: warned once, skipped with the reason, nothing lent; listed later → filled", async () => {
  const w = await startWorld({ ledgerMs: 250, policy: { pools: [otherPool()] } });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const before = await vaultState(w);
    const usdcBefore = await balance(w, w.usdc, keeper.publicKey());
    await shock(w, w.xlm, -500); // borrower_xlm_1 → HF ≈ 0.98
    let url: string;
    ({ k, url } = await startKeeper(keeperEnv(w, keeper, { SLIPPAGE_BPS: "400" })));
    const pending = async () =>
      (await (await fetch(`${url}/api/state?events=0&positions=0`)).json()).pending_changes;
    const poolMsg = new RegExp(`LENDING_POOL ${w.pool} is not a pool in the vault's flash policy`);
    // Start-up: the policy problem and the slippage bound.
    await waitLog(k, (l) => l.level === "warn" && poolMsg.test(String(l.msg)), 60_000);
    await waitLog(
      k,
      (l) =>
        /SLIPPAGE_BPS 400 is above the vault's max_slippage_bps 300/.test(String(l.msg)) &&
        l.level === "warn",
    );
    // Two cycles' worth of skipped tasks, each with the reason.
    const skips = () =>
      logLines(k!).filter((l) =>
        l.status === "skipped" && poolMsg.test(String(l.reason)) && l.adapter === "lending_pool"
      );
    await until(() => Promise.resolve(skips().length >= 2), 60_000, "two skipped liquidations");
    const adapterWarnings = logLines(k).filter((l) =>
      l.level === "warn" && poolMsg.test(String(l.msg)) && /liquidations are skipped$/.test(
        String(l.msg),
      )
    );
    assert.equal(adapterWarnings.length, 1, "warned once, not every cycle");
    // Nothing that costs anything happened: no auction, no flash, same books, same USDC.
    assert.equal((await events(w, w.pool, "new_auction")).length, 0);
    assert.equal((await events(w, w.vault, "flash")).length, 0);
    assert.deepEqual(await vaultState(w), before);
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcBefore - 100n * USDC);
    assert.equal(BigInt((await keeperInfo(w, keeper.publicKey())).total_executions as bigint), 0n);

    // The admin lists the pool: a widening change, so the vault queues it (issue 20). The keeper
    // sees it coming (log line, API) but the policy in force still refuses: nothing happens.
    await w.node.invoke(w.vault, "set_flash_policy", {
      policy: { ...w.policy, pools: [...w.policy.pools, w.pool] },
    }, { source: w.admin });
    const queued = await waitLog(
      k,
      (l) => /queued a flash policy; it allows this keeper's liquidations/.test(String(l.msg)),
    );
    const p1 = await until(async () => (await pending()).flash_policy, 30_000, "pending policy");
    assert.equal(p1.warning, null);
    assert.equal(p1.applies_at, queued.applies_at);
    assert.ok(p1.policy.pools.includes(w.pool));
    const skipped = skips().length;
    await until(() => Promise.resolve(skips().length > skipped), 60_000, "still skipped");
    assert.equal((await events(w, w.pool, "new_auction")).length, 0);
    // Past applies_at the policy is in force; the keeper re-reads it before each liquidation.
    await applyQueued(w);
    await waitLog(k, (l) => /flash policy now allows our liquidations/.test(String(l.msg)));
    // Applied: nothing waits any more (the dashboard refreshes at the end of the cycle).
    await until(async () => (await pending()).flash_policy === null, 30_000, "applied");
    await until(async () => (await events(w, w.pool, "new_auction")).length > 0, 60_000, "auction");
    await w.node.closeLedgers(150);
    const flashes = await until(
      async () => {
        const r = await events(w, w.vault, "flash");
        return r.length > 0 ? r : undefined;
      },
      90_000,
      "flash",
    );
    const [amount, returned, profit] = flashes[0].value as bigint[];
    assert.ok(profit > 0n && returned - amount === profit);
    // The vault booked exactly the flashes' profit. (The keeper may already have sent another
    // flash — borrower_mixed, or the rest of a part fill, in the same cycle — so the books are
    // compared with every flash landed by the time they are read, read until no flash lands
    // between the two reads.)
    const booked = await until(
      async () => {
        const st = await vaultState(w);
        let sum = 0n;
        for (const f of await events(w, w.vault, "flash")) sum += (f.value as bigint[])[2];
        return st.total_profit - before.total_profit === sum ? { st, sum } : undefined;
      },
      30_000,
      "the books to match the flashes",
    );
    // The keeper keeps nothing: its USDC is where it was.
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcBefore - 100n * USDC);
    // The fills' profit is depositors': all of it locked at first, unlocking over 24 h.
    const after = booked.st;
    assert.ok(after.locked_profit > 0n && after.locked_profit <= booked.sum);
    assert.ok(after.unlock_end > 0n);

    // A queued policy that swaps our pool for another: one warning naming when it applies, and
    // the API's warning; liquidations go on until then and are skipped after.
    const swapped = otherPool();
    await w.node.invoke(w.vault, "set_flash_policy", {
      policy: { ...w.policy, pools: [swapped] },
    }, { source: w.admin });
    const p2 = await until(
      async () => (await pending()).flash_policy?.warning ? (await pending()).flash_policy : null,
      30_000,
      "pending policy warning",
    );
    const delist = new RegExp(
      `queued a flash policy that applies at ${
        p2.applies_at.replace(/[.]/g, "\\.")
      } \\(ledger time\\) and de-lists this keeper's liquidations \\(LENDING_POOL ${w.pool} is not a pool in it\\)`,
    );
    assert.match(p2.warning, delist);
    assert.deepEqual(p2.policy.pools, [swapped]);
    const warned = () =>
      logLines(k!).filter((l) => l.level === "warn" && delist.test(String(l.msg)));
    await until(() => Promise.resolve(warned().length > 0), 30_000, "the de-list warning");
    await new Promise((r) => setTimeout(r, 10_000)); // three more cycles at POLL_INTERVAL 3
    assert.equal(warned().length, 1, "warned once, not every cycle");
    assert.equal(warned()[0].applies_at, p2.applies_at);
    const skippedBefore = skips().length;
    await applyQueued(w);
    // More positions under water (every borrower's collateral −30 %): tasks to skip.
    await shock(w, w.xlm, -3000);
    await shock(w, w.weth, -3000);
    await until(() => Promise.resolve(skips().length > skippedBefore), 60_000, "skipped again");
  } catch (e) {
    dump(k);
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await w.close();
  }
});

Deno.test("flash policy without any router: no venue usable inside a flash — skipped before any auction, nothing lent", async () => {
  const w = await startWorld({ ledgerMs: 250, policy: { routers: [] } });
  const keeper = w.keepers[0];
  let k: KeeperChild | undefined;
  try {
    const before = await vaultState(w);
    await shock(w, w.xlm, -500);
    ({ k } = await startKeeper(keeperEnv(w, keeper)));
    await waitLog(
      k,
      (l) => /no DEX venue is usable inside a flash/.test(String(l.msg)) && l.level === "warn",
      60_000,
    );
    const text = k.stderr();
    assert.match(text, /DEX venue primary \(soroswap\) is not used inside a flash: router not in/);
    assert.match(text, /DEX venue fallback \(soroswap\) is not used inside a flash: router not in/);
    await waitLog(k, (l) => l.status === "skipped" && /^NO_ROUTE/.test(String(l.reason)), 60_000);
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

Deno.test("flashPolicyProblem names the executor first, then the pool; undefined when both are listed", () => {
  const [liq, pool, other] = ["CLIQ", "CPOOL", "COTHER"];
  const policy = {
    executors: [liq],
    max_slippage_bps: 300,
    pools: [pool],
    routers: [],
    tokens: [],
  };
  assert.equal(flashPolicyProblem(policy, liq, pool), undefined);
  assert.match(
    flashPolicyProblem({ ...policy, executors: [other] }, liq, pool)!,
    /^LIQUIDATOR_CONTRACT CLIQ is not an executor/,
  );
  assert.match(
    flashPolicyProblem({ ...policy, pools: [other] }, liq, pool)!,
    /^LENDING_POOL CPOOL is not a pool/,
  );
  assert.match(
    flashPolicyProblem({ ...policy, executors: [], pools: [] }, liq, pool)!,
    /^LIQUIDATOR_CONTRACT/,
  );
});
