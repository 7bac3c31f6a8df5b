/**
 * The lending-pool adapter's getTasks on the market scenario over JSON-RPC: health factors with
 * Blend's math (checked against the Blend SDK's own loaders and `PositionsEstimate`), exactly one
 * task per position with HF < 1.0, and the spec's priority bands (10 / 7 / 4 / 1 for HF < 0.5 /
 * < 0.8 / < 0.95 / otherwise). Plus the bands' boundaries as a pure function.
 */
import assert from "node:assert/strict";
import { PoolV2, PositionsEstimate } from "@blend-capital/blend-sdk";
import {
  LendingPoolAdapter,
  priorityFor,
} from "@vigil/keeper/adapters/lending_pool/lending_pool_adapter";
import { sortTasks } from "@vigil/keeper/adapters/adapter";
import { ChainRpc } from "@vigil/soroban/rpc";
import { shock, startWorld } from "@vigil/testing/keeper/keeper_fixture";

Deno.test("priorityFor: the spec's bands, boundaries on the upper side", () => {
  const cases: [number, number][] = [
    [0, 10],
    [0.4999, 10],
    [0.5, 7],
    [0.7999, 7],
    [0.8, 4],
    [0.9499, 4],
    [0.95, 1],
    [0.9999, 1],
  ];
  for (const [hf, p] of cases) assert.equal(priorityFor(hf), p, `hf ${hf}`);
});

Deno.test("getTasks: one task per position with HF < 1, Blend's health factor, priority bands", async () => {
  // Ledgers close on demand (and after a send). The market's seven borrowers span every band.
  const w = await startWorld({ ledgerMs: 0 });
  const keeper = w.keepers[0].publicKey();
  const chain = new ChainRpc(w.node.rpcUrl, { networkPassphrase: w.node.networkPassphrase });
  const network = {
    rpc: w.node.rpcUrl,
    passphrase: w.node.networkPassphrase,
    opts: { allowHttp: true },
  };
  const adapter = new LendingPoolAdapter({
    poolId: w.pool,
    keeper,
    usdc: w.usdc,
    minProfit: 1.02,
    pollIntervalSec: 10,
  });
  /** getTasks checked against the Blend SDK's own loaders; returns the priorities seen. */
  const check = async (): Promise<Set<number>> => {
    const tasks = await adapter.getTasks(chain);
    const pool = await PoolV2.load(network, w.pool);
    const oracle = await pool.loadOracle();
    const expected = new Map<string, number>();
    for (const b of w.market.borrowers) {
      const user = await pool.loadUser(b.public);
      const est = PositionsEstimate.build(pool, oracle, user.positions);
      if (est.totalEffectiveLiabilities > 0) {
        expected.set(b.public, est.totalEffectiveCollateral / est.totalEffectiveLiabilities);
      }
    }
    const underwater = [...expected].filter(([, hf]) => hf < 1);
    assert.ok(underwater.length >= 2, `underwater: ${JSON.stringify(underwater)}`);
    assert.ok(underwater.length < expected.size, "some positions stay healthy");

    // The keeper's health factors agree with the SDK's (the SDK accrues to wall-clock time, the
    // keeper to ledger time: a relative difference far below the band widths is allowed).
    const views = new Map(adapter.positions().map((p) => [p.user, p.healthFactor]));
    for (const [user, hf] of expected) {
      const mine = views.get(user);
      assert.ok(mine !== null && mine !== undefined, `no health factor for ${user}`);
      assert.ok(Math.abs(mine - hf) / hf < 1e-4, `${user}: keeper ${mine}, Blend SDK ${hf}`);
    }

    // Exactly one task per underwater position, none for healthy ones, priority by band.
    const byUser = new Map<string, number>();
    for (const t of tasks) {
      const user = (t.data as { user: string }).user;
      assert.ok(!byUser.has(user), `two tasks for ${user}`);
      byUser.set(user, t.priority);
    }
    assert.deepEqual(new Set(byUser.keys()), new Set(underwater.map(([u]) => u)));
    for (const [user, hf] of underwater) assert.equal(byUser.get(user), priorityFor(hf));
    // The cycle's order puts the worst first.
    const order = sortTasks(tasks).map((t) => t.priority);
    assert.deepEqual(order, [...order].sort((a, b) => b - a));
    return new Set(byUser.values());
  };
  try {
    // XLM −20 %: the XLM-collateral borrowers fall into the 4 and 1 bands (HF ≈ 0.82–0.96).
    await shock(w, w.xlm, -2000);
    await w.node.closeLedgers(1);
    const mild = await check();
    // A further −43.75 % (−55 % in all): the 10 and 7 bands (HF ≈ 0.46–0.68).
    await shock(w, w.xlm, -4375);
    await w.node.closeLedgers(1);
    const deep = await check();
    assert.deepEqual(
      new Set([...mild, ...deep]),
      new Set([10, 7, 4, 1]),
      `${[...mild]} / ${[...deep]}`,
    );
  } finally {
    chain.close();
    await w.close();
  }
});
