/**
 * The keeper against the vault's flash policy (issue 12 follow-up), as a real child process over
 * JSON-RPC:
 * - a policy that does not list the keeper's LENDING_POOL: a clear warning (once), every
 *   liquidation skipped with the reason, no auction created, nothing lent or booked; once the
 *   admin lists the pool, the keeper (re-reading the policy) fills it;
 * - SLIPPAGE_BPS above the policy's max_slippage_bps: a start-up warning;
 * - a policy that lists no router: no venue usable inside a flash, skipped before any auction.
 */
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import {
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
} from "./keeper_fixture.ts";
import type { KeeperChild } from "./keeper_process.ts";
import { flashPolicyProblem } from "../../keeper/adapters/lending_pool/mod.ts";

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
    ({ k } = await startKeeper(keeperEnv(w, keeper, { SLIPPAGE_BPS: "400" })));
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

    // The admin lists the pool: the keeper re-reads the policy before each liquidation.
    await w.node.invoke(w.vault, "set_flash_policy", {
      policy: { ...w.policy, pools: [...w.policy.pools, w.pool] },
    }, { source: w.admin });
    await waitLog(k, (l) => /flash policy now allows our liquidations/.test(String(l.msg)));
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
    assert.equal((await vaultState(w)).total_profit - before.total_profit, profit);
    // The keeper keeps nothing: its USDC is where it was.
    assert.equal(await balance(w, w.usdc, keeper.publicKey()), usdcBefore - 100n * USDC);
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
    assert.match(text, /DEX venue fallback \(phoenix\) is not used inside a flash: phoenix ABI/);
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
