/**
 * "A steady-state cycle must not re-read every position": the keeper's real cycle (lending-pool
 * adapter, dashboard refresh) in-process against the local node over JSON-RPC, on
 * the market scenario with and without extra seeded borrowers. With no new pool events, the RPC
 * requests of a cycle — by method, not only in total — must be the same however many borrowers
 * the pool has, and a price move must be absorbed by recomputing health factors in memory (no
 * extra request). `bench/keeper_bench.ts` prints the same figures at 1,000 and 10,000 borrowers;
 * this test keeps the property in CI at a size that runs in seconds.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { startLocalnet } from "@vigil/localnet/node";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployVigil } from "@vigil/contracts/deploy/deploy_vigil";
import { marketPolicy } from "@vigil/demo/dev_network";
import { deployMarket, registerShock, seedBorrowers } from "@vigil/localnet/scenarios/market";
import { loadConfig } from "@vigil/keeper/config";
import { createKeeperContext } from "@vigil/keeper/context";
import { keeperCycle, prepareChain } from "@vigil/keeper/startup";

interface Measured {
  tracked: number;
  steady: Record<string, number>[];
  moved: Record<string, number>;
  hfBefore: Map<string, number | null>;
  hfAfter: Map<string, number | null>;
}

function diff(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(b)) if (v - (a[k] ?? 0) > 0) out[k] = v - (a[k] ?? 0);
  return out;
}

async function measure(extraBorrowers: number): Promise<Measured> {
  // A long ledger interval: nothing but our own calls happens on chain during the cycles.
  // No timer: a ledger closes only ~100 ms after one of our own transactions is queued.
  const node = await startLocalnet({ port: 0, ledgerMs: 0, onError: () => {} });
  try {
    const dev = await setupDevChain(node);
    const market = await deployMarket(node, dev, { allocationVault: false });
    const { vault, registry } = await deployVigil(node, {
      usdc: dev.contracts.usdc,
      policy: marketPolicy(market),
    });
    registerShock(node, market.contracts.oracle, market.accounts.market_admin.public);
    if (extraBorrowers > 0) await seedBorrowers(node, market, extraBorrowers);
    await node.closeLedgers(1);
    const keeper = Keypair.fromSecret(dev.accounts.keeper1.secret);
    const config = loadConfig({
      KEEPER_SECRET: keeper.secret(),
      REGISTRY_CONTRACT: registry,
      VAULT_CONTRACT: vault,
      LENDING_POOL: market.contracts.lending_pool,
      USDC_CONTRACT: dev.contracts.usdc,
      SOROBAN_RPC: node.rpcUrl,
      NETWORK_PASSPHRASE: node.networkPassphrase,
      MIN_PROFIT: "1000", // never fill here: the cycles must stay free of our own events
      POLL_INTERVAL: "10",
    });
    const ctx = createKeeperContext(config, {
      defaultMetrics: false,
      logOptions: { sink: null },
    });
    const rt = await prepareChain(ctx); // registers: a registry event, not a pool event
    const chain = rt.chain;
    try {
      const cycle = async () => {
        const before = chain.counts();
        const r = await keeperCycle(rt, ctx);
        assert.equal(r.errors, 0, "cycle errors");
        return diff(before, chain.counts());
      };
      const hfs = () =>
        new Map(rt.lending[0].positions().map((p) => [p.user, p.healthFactor] as const));
      await cycle(); // cold start: backfill and read every position
      const tracked = rt.lending[0].positions().length;
      const steady = [await cycle(), await cycle()];
      const hfBefore = hfs();
      // +1 % XLM: every XLM-collateral position's health factor moves; no pool event is emitted.
      const shocked = await fetch(node.rpcUrl, {
        method: "POST",
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "localnet_shock",
          params: { asset: market.contracts.xlm, bps: 100 },
        }),
      }).then((r) => r.json());
      assert.equal(shocked.error, undefined, JSON.stringify(shocked.error));
      const moved = await cycle();
      return { tracked, steady, moved, hfBefore, hfAfter: hfs() };
    } finally {
      chain.close();
    }
  } finally {
    await node.close();
  }
}

Deno.test("steady-state cycle: RPC requests do not grow with borrowers; price moves recomputed in memory", async () => {
  const EXTRA = 250;
  const small = await measure(0);
  const large = await measure(EXTRA);

  // The larger pool really is larger, and its positions are tracked.
  assert.ok(small.tracked > 0);
  assert.ok(
    large.tracked >= small.tracked + EXTRA,
    `tracked ${large.tracked} vs ${small.tracked}`,
  );

  for (const m of [small, large]) {
    // Steady cycles are identical to each other and never read positions one by one.
    assert.deepEqual(m.steady[1], m.steady[0]);
    assert.equal(m.steady[0].getEvents, 1, JSON.stringify(m.steady[0]));
    // A price move costs no extra request: the health factors are recomputed in memory.
    assert.deepEqual(m.moved, m.steady[0]);
    let changed = 0;
    for (const [user, hf] of m.hfAfter) {
      const was = m.hfBefore.get(user);
      if (hf !== null && was !== null && was !== undefined && hf !== was) changed++;
    }
    assert.ok(changed > 0, "no health factor moved with the price");
  }
  // The property itself: the same requests, method by method, with 250 more borrowers.
  assert.deepEqual(large.steady[0], small.steady[0]);
  console.log(
    `steady cycle: ${
      JSON.stringify(small.steady[0])
    } with ${small.tracked} and ${large.tracked} positions`,
  );
});
