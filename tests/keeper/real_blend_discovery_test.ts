/**
 * The keeper's lending-pool adapter against the real Blend v2 pool (opt-in market of
 * `localnet/protocols/blend/deploy.ts`): it discovers the borrowers from the real pool's events,
 * computes the same health factors as the Blend SDK, and makes a task for each underwater one
 * after an oracle drop — nothing the TypeScript stand-in taught it is needed for discovery.
 */
import assert from "node:assert/strict";
import { PoolV2, PositionsEstimate } from "@blend-capital/blend-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { setupDevChain } from "@vigil/localnet/dev_setup";
import { deployBlendMarket } from "@vigil/localnet/protocols/blend/deploy";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { LendingPoolAdapter } from "@vigil/keeper/adapters/lending_pool/lending_pool_adapter";
import { ChainRpc } from "@vigil/soroban/rpc";

Deno.test("keeper adapter on the real Blend pool: borrowers discovered, underwater ones tasked", async () => {
  await using node = await startTestNode();
  const base = await setupDevChain(node);
  const m = await deployBlendMarket(node, base);
  const c = m.contracts;
  // XLM −10 %: the XLM-backed borrowers (HF 1.03 and the mixed one at 1.02) go under 1.
  await node.invoke(c.oracle, "set_price", { asset: stellarAsset(c.xlm), price: 900_000n }, {
    source: m.accounts.market_admin.public,
  });
  await node.closeLedgers(1);

  const chain = new ChainRpc(node.rpcUrl, { networkPassphrase: node.networkPassphrase });
  const adapter = new LendingPoolAdapter({
    poolId: c.lending_pool,
    keeper: base.accounts.keeper1.public,
    usdc: c.usdc,
    minProfit: 1.02,
    pollIntervalSec: 10,
  });
  const tasks = await adapter.getTasks(chain);
  const views = new Map(adapter.positions().map((p) => [p.user, p.healthFactor]));

  const network = {
    rpc: node.rpcUrl,
    passphrase: node.networkPassphrase,
    opts: { allowHttp: true },
  };
  const pool = await PoolV2.load(network, c.lending_pool);
  const oracle = await pool.loadOracle();
  const underwater = new Set<string>();
  for (const b of m.borrowers) {
    const est = PositionsEstimate.build(pool, oracle, (await pool.loadUser(b.public)).positions);
    const hf = est.totalEffectiveCollateral / est.totalEffectiveLiabilities;
    const mine = views.get(b.public);
    assert.ok(typeof mine === "number", `${b.name} discovered`);
    assert.ok(Math.abs(mine - hf) / hf < 1e-4, `${b.name}: keeper ${mine}, Blend SDK ${hf}`);
    if (hf < 1) underwater.add(b.public);
  }
  assert.equal(underwater.size, 2, "borrower_xlm_1 and borrower_mixed");
  assert.deepEqual(
    new Set(tasks.map((t) => (t.data as { user: string }).user)),
    underwater,
  );
});
