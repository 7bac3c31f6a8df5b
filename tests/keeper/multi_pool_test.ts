/**
 * Issue 24, one keeper child process on a market of two Blend pools (real host, real Blend Wasm),
 * started as a new operator would: `LENDING_POOLS` naming both pools and NO
 * `LIQUIDATOR_CONTRACT` (the vault's flash policy lists exactly one executor: the keeper takes
 * it and says so), with a webhook for notifications.
 *
 * XLM +10 % on the oracle (and the DEX moved to follow it) sinks XLM-debt positions in both pools;
 * the keeper fills them, each in one flash that buys the XLM with the vault's USDC. The vault
 * books exactly what the flashes returned above what they lent, fills happen in BOTH pools, the
 * keeper keeps nothing, and the webhook receives a fill message naming each pool.
 */
import assert from "node:assert/strict";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import {
  balance,
  dexTrader,
  events,
  keeperEnv,
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

/** A local Slack/Discord-style webhook receiver; the URL carries a token like the real ones. */
function webhook() {
  const texts: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const body = await req.json();
    texts.push(String(body.text));
    return new Response("ok");
  });
  return {
    texts,
    url: `http://127.0.0.1:${server.addr.port}/services/T0/B0/webhooktoken42`,
    close: () => server.shutdown(),
  };
}

Deno.test("two pools, no LIQUIDATOR_CONTRACT: XLM-debt fills in both pools, exact profit booking, keeper +0, webhook told", async () => {
  const w = await startWorld({ pools: 2, config: { max_draw_per_keeper: 40_000n * USDC } });
  const hook = webhook();
  const keeper = w.keepers[0];
  const me = keeper.publicKey();
  let k: KeeperChild | undefined;
  try {
    assert.equal(w.pools.length, 2);
    // XLM +10 % on the oracle; a trader moves the USDC/XLM pair to follow it (so the XLM the
    // pool refunds sells above the oracle floor).
    await shock(w, w.xlm, 1000);
    await (await dexTrader(w))(97_000n * USDC, [w.usdc, w.xlm]);

    const env = keeperEnv(w, keeper, { LIQUIDATOR_CONTRACT: "", NOTIFY_WEBHOOK_URL: hook.url });
    assert.equal(env.LENDING_POOLS, w.pools.join(","));
    const started = await startKeeper(env);
    k = started.k;
    await waitLog(
      k,
      (l) => String(l.msg).includes(`LIQUIDATOR_CONTRACT is not set: using ${w.liquidator}`),
    );
    // Auctions in both pools, then past the first profitable block (the bid falls from 200).
    for (const pool of w.pools) {
      await until(
        async () => (await events(w, pool, "new_auction")).length > 0,
        60_000,
        `an auction in ${pool}`,
      );
    }
    const before = await vaultState(w);
    const usdcBefore = await balance(w, w.usdc, me);
    const start = w.node.latestLedger().sequence;
    await w.node.closeLedgers(190);
    const fillsIn = async (pool: string) => (await events(w, pool, "fill_auction", start)).length;
    await until(
      async () => (await fillsIn(w.pools[0])) > 0 && (await fillsIn(w.pools[1])) > 0,
      120_000,
      "fills in both pools",
    );
    // The books once the keeper is idle (no flash in flight): stop it first.
    await stopKeeper(k);
    k = undefined;
    const flashes = await events(w, w.vault, "flash", start);
    const after = await vaultState(w);
    let booked = 0n;
    for (const f of flashes) {
      const [amount, returned, profit, executor] = f.value as [bigint, bigint, bigint, string];
      assert.equal(executor, w.liquidator, "the policy's executor, found by the keeper");
      assert.equal(profit, returned - amount);
      assert.ok(profit > 0n);
      booked += profit;
    }
    assert.equal(after.total_usdc - before.total_usdc, booked, "vault total_usdc delta");
    assert.equal(after.total_profit - before.total_profit, booked);
    // Every fill in either pool is one of the keeper's flashes, and some bid XLM (non-USDC debt).
    const flashTx = new Set(flashes.map((f) => f.txHash));
    let xlmBids = 0;
    for (const pool of w.pools) {
      for (const fill of await events(w, pool, "fill_auction", start)) {
        assert.ok(flashTx.has(fill.txHash), "a fill outside a flash");
      }
      for (const a of await events(w, pool, "new_auction")) {
        const [, data] = a.value as [number, { bid: Record<string, bigint> }];
        if (Object.keys(data.bid).includes(w.xlm)) xlmBids++;
      }
    }
    assert.ok(xlmBids >= 2, `XLM-debt auctions: ${xlmBids}`);
    console.log(
      `${flashes.length} flashes booked ${booked} units; ${xlmBids} XLM-debt auctions; ${hook.texts.length} notices`,
    );
    assert.equal(await balance(w, w.usdc, me), usdcBefore, "the keeper keeps no USDC");
    const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, start, [w.xlm, w.weth]);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(audit.keeperGains, []);
    // The webhook heard of the start and of a fill in each pool, and never saw its own token.
    await until(
      () => Promise.resolve(hook.texts.some((t) => t.includes("keeper stopped"))),
      10_000,
      "stop notice",
    );
    assert.ok(hook.texts.some((t) => t.includes("keeper started")), hook.texts.join("\n"));
    for (const pool of w.pools) {
      assert.ok(
        hook.texts.some((t) => t.includes(`liquidation filled on pool ${pool}`)),
        `no fill message for ${pool}: ${hook.texts.join("\n")}`,
      );
    }
    assert.ok(!hook.texts.some((t) => t.includes("webhooktoken42")));
  } catch (e) {
    if (k) {
      console.error(
        k.stderr().split("\n").filter((l) => !l.includes('"level":"debug"')).slice(-60).join("\n"),
      );
    }
    throw e;
  } finally {
    if (k) await stopKeeper(k);
    await hook.close();
    await w.close();
  }
});
