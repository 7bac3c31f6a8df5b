/**
 * The allocation vault on the local node over JSON-RPC with real signatures: managed funds and
 * targets read by simulation, drift computed client-side, rebalance gated to the rebalance
 * manager (a keeper account given the role by the manager), Unwind/Invest effects on the
 * strategies' token balances, and user deposit/withdraw.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { type Client, ok, send, simError, TX } from "@vigil/testing/protocols/helpers/client";
import { setupDevChain } from "../../dev_setup.ts";
import { deployAllocationVault } from "./deploy.ts";
import {
  computeDrift,
  type CurrentAssetInvestmentAllocation,
  needsRebalance,
  planRebalance,
} from "./drift.ts";

const E7 = 10_000_000n;

interface Fixture {
  node: TestNode;
  manager: Keypair;
  keeper: Keypair;
  bob: Keypair;
  usdc: string;
  vault: string;
  strategies: string[];
  client(signer: Keypair): Promise<Client>;
  funds(): Promise<CurrentAssetInvestmentAllocation>;
}

async function withFixture(fn: (f: Fixture) => Promise<void>): Promise<void> {
  const node = await startTestNode();
  try {
    const base = await setupDevChain(node, { accounts: ["manager", "keeper", "bob", "carol"] });
    const kp = (n: string) => Keypair.fromSecret(base.accounts[n].secret);
    const manager = kp("manager");
    const usdc = base.contracts.usdc;
    // Targets 50/50; the seed is invested 80/20, so the vault starts 3000 bps off target.
    const d = await deployAllocationVault(node, {
      asset: usdc,
      manager: manager.publicKey(),
      weights: [5000, 5000],
      seed: { from: kp("carol").publicKey(), amount: 10_000n * E7 },
      initialAllocation: [8000, 2000],
    });
    await node.closeLedgers(1);
    const client = (signer: Keypair) => node.clientFor<Client>(d.allocation_vault, signer);
    const reader = await client(manager);
    await fn({
      node,
      manager,
      keeper: kp("keeper"),
      bob: kp("bob"),
      usdc,
      vault: d.allocation_vault,
      strategies: d.strategies,
      client,
      funds: async () =>
        ok<CurrentAssetInvestmentAllocation[]>(await reader.fetch_total_managed_funds())[0],
    });
  } finally {
    await node.close();
  }
}

Deno.test("allocation vault over RPC: managed funds, targets and drift as a keeper reads them", async () => {
  await withFixture(async (f) => {
    const funds = await f.funds();
    assert.equal(funds.asset, f.usdc);
    assert.equal(funds.total_amount, 10_000n * E7);
    assert.equal(funds.idle_amount, 0n);
    assert.deepEqual(funds.strategy_allocations.map((s) => s.amount), [8_000n * E7, 2_000n * E7]);
    // Strategy holdings are real token balances.
    for (const [i, s] of f.strategies.entries()) {
      assert.equal(await f.node.view(f.usdc, "balance", [s]), funds.strategy_allocations[i].amount);
    }
    const c = await f.client(f.keeper);
    const targets = Object.fromEntries(ok<[string, number][]>(await c.get_target_weights()));
    assert.deepEqual(targets, { [f.strategies[0]]: 5000, [f.strategies[1]]: 5000 });
    const drift = computeDrift(funds, targets);
    assert.equal(drift.driftBps, 3000);
    assert.ok(needsRebalance(drift, 500));
    assert.deepEqual(ok(await c.get_assets()), [{
      address: f.usdc,
      strategies: f.strategies.map((address, i) => ({ address, name: `hodl_${i}`, paused: false })),
    }]);
  });
});

Deno.test("allocation vault over RPC: rebalance is role-gated; the keeper given the role rebalances", async () => {
  await withFixture(async (f) => {
    const keeperVault = await f.client(f.keeper);
    const plan = planRebalance(computeDrift(await f.funds()));
    assert.deepEqual(plan, [
      { tag: "Unwind", values: [f.strategies[0], 3_000n * E7] },
      { tag: "Invest", values: [f.strategies[1], 3_000n * E7] },
    ]);
    // Not a role holder yet: Unauthorized (130).
    assert.equal(
      simError(
        await keeperVault.rebalance({ caller: f.keeper.publicKey(), instructions: plan }, TX),
      ),
      130,
    );
    // The keeper cannot appoint itself: the manager's signature is required.
    const self = await keeperVault.set_rebalance_manager({
      new_rebalance_manager: f.keeper.publicKey(),
    }, TX);
    assert.deepEqual(self.needsNonInvokerSigningBy(), [f.manager.publicKey()]);
    await assert.rejects(() => self.signAndSend());
    // The manager gives the keeper the role.
    const mv = await f.client(f.manager);
    await send(await mv.set_rebalance_manager({ new_rebalance_manager: f.keeper.publicKey() }, TX));
    assert.equal(ok(await keeperVault.get_rebalance_manager()), f.keeper.publicKey());
    // Naming the manager as caller does not help the keeper (the manager must sign).
    const spoof = await keeperVault.rebalance(
      { caller: f.manager.publicKey(), instructions: plan },
      TX,
    );
    await assert.rejects(() => spoof.signAndSend());

    const sent = await send(
      await keeperVault.rebalance({ caller: f.keeper.publicKey(), instructions: plan }, TX),
    );
    assert.ok(sent.response.ledger > 0, "included");
    const after = await f.funds();
    assert.deepEqual(after.strategy_allocations.map((s) => s.amount), [5_000n * E7, 5_000n * E7]);
    assert.equal(after.total_amount, 10_000n * E7);
    assert.equal(computeDrift(after).driftBps, 0);
    assert.equal(await f.node.view(f.usdc, "balance", [f.strategies[1]]), 5_000n * E7);
    assert.equal(await f.node.view(f.usdc, "balance", [f.vault]), 0n);

    // Errors of the instructions.
    const one = (tag: string, s: string, amount: bigint) =>
      keeperVault.rebalance({
        caller: f.keeper.publicKey(),
        instructions: [{ tag, values: [s, amount] }],
      }, TX);
    assert.equal(simError(await one("Unwind", f.strategies[0], 5_000n * E7 + 1n)), 128);
    assert.equal(simError(await one("Invest", f.strategies[0], 0n)), 110);
    assert.equal(
      simError(await keeperVault.rebalance({ caller: f.keeper.publicKey(), instructions: [] }, TX)),
      125,
    );
  });
});

Deno.test("allocation vault over RPC: user deposit and withdraw against managed funds", async () => {
  await withFixture(async (f) => {
    const bv = await f.client(f.bob);
    const usdcBefore = await f.node.view<bigint>(f.usdc, "balance", [f.bob.publicKey()]);
    const sent = await send(
      await bv.deposit({
        amounts_desired: [1_000n * E7],
        amounts_min: [1_000n * E7],
        from: f.bob.publicKey(),
        invest: true,
      }, TX),
    );
    const [amounts, shares, invested] = ok<[bigint[], bigint, unknown]>(sent);
    assert.deepEqual(amounts, [1_000n * E7]);
    assert.equal(shares, 1_000n * E7, "1:1 while the vault has no gains");
    assert.ok(invested, "invest=true returns the allocation it made");
    let funds = await f.funds();
    assert.deepEqual(funds.strategy_allocations.map((s) => s.amount), [8_800n * E7, 2_200n * E7]);
    assert.equal(ok(await bv.balance({ id: f.bob.publicKey() })), shares);

    // Yield of 1,100 USDC to strategy 1 (a plain transfer): bob's shares are worth 10 % more.
    await f.node.invoke(f.usdc, "mint", [f.strategies[1], 1_100n * E7]);
    funds = await f.funds();
    assert.equal(funds.total_amount, 12_100n * E7);
    const quote = ok<bigint[]>(await bv.get_asset_amounts_per_shares({ vault_shares: shares }));
    assert.equal(quote[0], (12_100n * E7 * shares) / (11_000n * E7));
    const out = ok<bigint[]>(
      await send(
        await bv.withdraw({
          withdraw_shares: shares,
          min_amounts_out: [quote[0]],
          from: f.bob.publicKey(),
        }, TX),
      ),
    );
    assert.deepEqual(out, quote);
    assert.equal(
      await f.node.view<bigint>(f.usdc, "balance", [f.bob.publicKey()]) - usdcBefore,
      quote[0] - 1_000n * E7,
    );
    assert.equal(
      simError(
        await bv.withdraw(
          { withdraw_shares: 1n, min_amounts_out: [0n], from: f.bob.publicKey() },
          TX,
        ),
      ),
      111,
    );
  });
});
