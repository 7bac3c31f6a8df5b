/**
 * The allocation vault stand-in in-process (tests/protocols/helpers/dex_fake_host.ts): managed
 * funds, deposit/withdraw, role-gated rebalance with Unwind/Invest, drift maths, targets, fees.
 * The over-RPC flow with contract.Client is in allocation_vault_test.ts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { scValToNative } from "@stellar/stellar-sdk";
import { asDexHost, FakeHost, fakeToken } from "./helpers/dex_fake_host.ts";
import { deployAllocationVault } from "../../localnet/protocols/allocation_vault/deploy.ts";
import {
  computeDrift,
  type CurrentAssetInvestmentAllocation,
  equalTargets,
  needsRebalance,
  planRebalance,
} from "../../localnet/protocols/allocation_vault/drift.ts";

const E7 = 10_000_000n;

async function setup(opts: { weights?: number[]; initial?: number[]; seed?: bigint } = {}) {
  const h = new FakeHost();
  const manager = h.account();
  const keeper = h.account();
  const alice = h.account();
  const usdc = h.deploy(fakeToken, { symbol: "USDC" });
  h.invoke(usdc, "mint", { to: alice, amount: 100_000n * E7 });
  const d = await deployAllocationVault(asDexHost(h), {
    asset: usdc,
    manager,
    weights: opts.weights,
    seed: opts.seed === undefined ? undefined : { from: alice, amount: opts.seed },
    initialAllocation: opts.initial,
  });
  const funds = () =>
    h.invoke<CurrentAssetInvestmentAllocation[]>(d.allocation_vault, "fetch_total_managed_funds");
  return { h, manager, keeper, alice, usdc, ...d, v: d.allocation_vault, funds };
}

Deno.test("deploy: targets published, seed idle, managed funds reported per strategy", async () => {
  const t = await setup({ weights: [6000, 4000], seed: 10_000n * E7 });
  const [f] = t.funds();
  assert.equal(f.asset, t.usdc);
  assert.equal(f.idle_amount, 10_000n * E7);
  assert.equal(f.invested_amount, 0n);
  assert.equal(f.total_amount, 10_000n * E7);
  assert.deepEqual(f.strategy_allocations.map((s) => s.strategy_address), t.strategies);
  const targets = new Map(t.h.invoke<[string, number][]>(t.v, "get_target_weights"));
  assert.equal(targets.get(t.strategies[0]), 6000);
  assert.equal(targets.get(t.strategies[1]), 4000);
  // Vault shares: first deposit locks MINIMUM_LIQUIDITY in the vault.
  assert.equal(t.h.invoke(t.v, "balance", { id: t.alice }), 10_000n * E7 - 1000n);
  assert.equal(t.h.invoke(t.v, "total_supply"), 10_000n * E7);
  assert.equal(t.h.invoke(t.v, "get_rebalance_manager"), t.manager);
});

Deno.test("rebalance is gated to the RebalanceManager/Manager (130) and needs their auth", async () => {
  const t = await setup({ seed: 1_000n * E7, initial: [5000, 5000] });
  const ins = [{ tag: "Unwind", values: [t.strategies[0], 100n * E7] }];
  assert.equal(t.h.invokeError(t.v, "rebalance", { caller: t.keeper, instructions: ins }), 130);
  // Only the manager may appoint the rebalance manager.
  t.h.refuse.add(t.manager);
  assert.throws(
    () => t.h.invoke(t.v, "set_rebalance_manager", { new_rebalance_manager: t.keeper }),
    /Auth/,
  );
  t.h.refuse.delete(t.manager);
  t.h.invoke(t.v, "set_rebalance_manager", { new_rebalance_manager: t.keeper });
  assert.equal(t.h.invoke(t.v, "get_rebalance_manager"), t.keeper);
  const ev = t.h.events.find((e) =>
    e.contract === t.v && scValToNative(e.topics[1]) === "rbmanager"
  );
  assert.ok(ev);
  assert.equal(scValToNative(ev.topics[0]), "DeFindexVault");
  t.h.invoke(t.v, "rebalance", { caller: t.keeper, instructions: ins });
  assert.ok(t.h.auths.some((a) => a.address === t.keeper && a.fn === "rebalance"));
  // The caller named must authorize: a keeper that does not sign cannot act.
  t.h.refuse.add(t.keeper);
  assert.throws(
    () => t.h.invoke(t.v, "rebalance", { caller: t.keeper, instructions: ins }),
    /Auth/,
  );
  t.h.refuse.delete(t.keeper);
  assert.equal(t.h.invokeError(t.v, "rebalance", { caller: t.keeper, instructions: [] }), 125);
});

Deno.test("Unwind/Invest move funds between idle and strategies; errors 110/128/144", async () => {
  const t = await setup({ seed: 1_000n * E7, initial: [7000, 3000] });
  const [s0, s1] = t.strategies;
  let [f] = t.funds();
  assert.deepEqual(f.strategy_allocations.map((s) => s.amount), [700n * E7, 300n * E7]);
  assert.equal(f.idle_amount, 0n);
  t.h.invoke(t.v, "rebalance", {
    caller: t.manager,
    instructions: [
      { tag: "Unwind", values: [s0, 200n * E7] },
      { tag: "Invest", values: [s1, 150n * E7] },
    ],
  });
  [f] = t.funds();
  assert.deepEqual(f.strategy_allocations.map((s) => s.amount), [500n * E7, 450n * E7]);
  assert.equal(f.idle_amount, 50n * E7);
  assert.equal(f.total_amount, 1_000n * E7);
  assert.equal(t.h.invoke(t.usdc, "balance", { id: t.v }), 50n * E7, "idle = vault's balance");
  const events = t.h.events.filter((e) =>
    e.contract === t.v && scValToNative(e.topics[1]) === "rebalance"
  );
  const methods = events.map((e) =>
    (scValToNative(e.data) as { rebalance_method: string }).rebalance_method
  );
  assert.deepEqual(methods.slice(-2), ["unwind", "invest"]);

  const err = (tag: string, s: string, amount: bigint) =>
    t.h.invokeError(t.v, "rebalance", {
      caller: t.manager,
      instructions: [{ tag, values: [s, amount] }],
    });
  assert.equal(err("Unwind", s0, 0n), 110);
  assert.equal(err("Invest", s1, -1n), 110);
  assert.equal(err("Unwind", s0, 500n * E7 + 1n), 128);
  assert.equal(err("Unwind", t.alice, 1n), 140);
  // Invest above idle fails in the token (no partial state).
  assert.equal(err("Invest", s1, 51n * E7), 10, "SAC balance error #10");
  t.h.invoke(t.v, "pause_strategy", { strategy_address: s1, caller: t.manager });
  assert.equal(err("Invest", s1, 1n * E7), 144);
  assert.equal(t.funds()[0].strategy_allocations[1].paused, true);
  assert.equal(
    t.h.invokeError(t.v, "rebalance", {
      caller: t.manager,
      instructions: [{ tag: "SwapExactIn", values: [t.usdc, s0, 1n, 1n, 10n] }],
    }),
    116,
  );
});

Deno.test("deposit/withdraw: shares pro rata; withdrawal unwinds strategies when idle is short", async () => {
  const t = await setup({ seed: 1_000n * E7, initial: [5000, 5000] });
  const bob = t.h.account();
  t.h.invoke(t.usdc, "mint", { to: bob, amount: 500n * E7 });
  // Yield: 100 USDC lands in strategy 0 (shares of a HODL strategy grow).
  t.h.invoke(t.usdc, "mint", { to: t.strategies[0], amount: 100n * E7 });
  const [f] = t.funds();
  assert.equal(f.total_amount, 1_100n * E7);
  const [amounts, minted] = t.h.invoke<[bigint[], bigint, unknown]>(t.v, "deposit", {
    amounts_desired: [500n * E7],
    amounts_min: [500n * E7],
    from: bob,
    invest: true,
  });
  assert.deepEqual(amounts, [500n * E7]);
  assert.equal(minted, (1_000n * E7 * 500n * E7) / (1_100n * E7));
  // invest=true follows current proportions (600:500 after the yield).
  const after = t.funds()[0];
  assert.equal(
    after.idle_amount,
    500n * E7 - (500n * E7 * 600n) / 1100n - (500n * E7 * 500n) / 1100n,
  );
  const out = t.h.invoke<bigint[]>(t.v, "withdraw", {
    withdraw_shares: minted,
    min_amounts_out: [0n],
    from: bob,
  });
  const total = after.total_amount;
  const supply = 1_000n * E7 + minted;
  assert.equal(out[0], (total * minted) / supply);
  assert.ok(t.h.invoke<bigint>(t.usdc, "balance", { id: bob }) >= 500n * E7 - 2n);
  assert.equal(
    t.h.invokeError(t.v, "withdraw", { withdraw_shares: 0n, min_amounts_out: [0n], from: bob }),
    110,
  );
  assert.equal(
    t.h.invokeError(t.v, "withdraw", {
      withdraw_shares: 10n ** 18n,
      min_amounts_out: [0n],
      from: t.alice,
    }),
    124,
  );
  assert.equal(
    t.h.invokeError(t.v, "deposit", {
      amounts_desired: [1n, 2n],
      amounts_min: [0n, 0n],
      from: bob,
      invest: false,
    }),
    112,
  );
});

Deno.test("drift: equal targets, exceed rule, plan unwinds first and stays funded", async () => {
  const t = await setup({ seed: 1_000n * E7, initial: [7000, 3000], weights: [5000, 5000] });
  const [f] = t.funds();
  const drift = computeDrift(f);
  assert.equal(drift.driftBps, 2000);
  assert.ok(needsRebalance(drift, 500));
  assert.ok(!needsRebalance(drift, 2000), "drift must exceed the threshold");
  const plan = planRebalance(drift);
  assert.deepEqual(plan, [
    { tag: "Unwind", values: [t.strategies[0], 200n * E7] },
    { tag: "Invest", values: [t.strategies[1], 200n * E7] },
  ]);
  t.h.invoke(t.v, "rebalance", { caller: t.manager, instructions: plan });
  assert.equal(computeDrift(t.funds()[0]).driftBps, 0);
  // Explicit targets from the vault.
  const targets = Object.fromEntries(t.h.invoke<[string, number][]>(t.v, "get_target_weights"));
  assert.equal(computeDrift(t.funds()[0], targets).driftBps, 0);
  // Idle funds count as under-allocation.
  t.h.invoke(t.v, "deposit", {
    amounts_desired: [1_000n * E7],
    amounts_min: [0n],
    from: t.alice,
    invest: false,
  });
  const d2 = computeDrift(t.funds()[0]);
  assert.equal(d2.driftBps, 2500);
  t.h.invoke(t.v, "rebalance", { caller: t.manager, instructions: planRebalance(d2) });
  assert.equal(computeDrift(t.funds()[0]).driftBps, 0);
});

Deno.test("drift plan never invests more than idle + unwound (property)", () => {
  const strategy = (i: number) => `S${i}`;
  fc.assert(
    fc.property(
      fc.array(
        fc.record({ amount: fc.bigInt({ min: 0n, max: 10n ** 12n }), paused: fc.boolean() }),
        {
          minLength: 2,
          maxLength: 5,
        },
      ),
      fc.bigInt({ min: 0n, max: 10n ** 12n }),
      (strats, idle) => {
        const allocs = strats.map((s, i) => ({ ...s, strategy_address: strategy(i) }));
        const invested = allocs.reduce((t, s) => t + s.amount, 0n);
        const f: CurrentAssetInvestmentAllocation = {
          asset: "A",
          idle_amount: idle,
          invested_amount: invested,
          strategy_allocations: allocs,
          total_amount: idle + invested,
        };
        const targets = equalTargets(f);
        const sum = Object.values(targets).reduce((a, b) => a + b, 0);
        assert.equal(sum, allocs.some((s) => !s.paused) ? 10_000 : 0);
        const plan = planRebalance(computeDrift(f, targets), 0n);
        let cash = idle;
        const seenInvest = { v: false };
        for (const ins of plan) {
          if (ins.tag === "Unwind") {
            assert.ok(!seenInvest.v, "unwinds come first");
            cash += ins.values[1];
          } else {
            seenInvest.v = true;
            assert.ok(!allocs.find((s) => s.strategy_address === ins.values[0])!.paused);
            cash -= ins.values[1];
          }
          assert.ok(ins.values[1] > 0n);
        }
        assert.ok(cash >= 0n, "invests are funded");
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("fees: gains locked at the vault fee, distributed to the receiver; rescue", async () => {
  const t = await setup({ seed: 1_000n * E7, initial: [5000, 5000] });
  const [s0, s1] = t.strategies;
  t.h.invoke(t.v, "lock_fees", { new_fee_bps: 1000 });
  assert.deepEqual(t.h.invoke(t.v, "get_fees"), [1000, 0]);
  t.h.invoke(t.usdc, "mint", { to: s0, amount: 100n * E7 }); // +100 yield
  t.h.invoke(t.v, "report");
  const reports = t.h.invoke<{ gains_or_losses: bigint; locked_fee: bigint }[]>(t.v, "lock_fees", {
    new_fee_bps: null,
  });
  assert.equal(reports[0].locked_fee, 10n * E7);
  assert.equal(t.funds()[0].strategy_allocations[0].amount, 590n * E7, "net of locked fee");
  const paid = t.h.invoke<[string, bigint][]>(t.v, "distribute_fees", { caller: t.manager });
  assert.deepEqual(paid, [[t.usdc, 10n * E7]]);
  assert.equal(t.h.invoke(t.usdc, "balance", { id: t.manager }), 10n * E7);
  t.h.invoke(t.v, "rescue", { strategy_address: s1, caller: t.manager });
  const [f] = t.funds();
  assert.equal(f.strategy_allocations[1].amount, 0n);
  assert.equal(f.strategy_allocations[1].paused, true);
  assert.equal(f.idle_amount, 500n * E7);
  assert.equal(t.h.invokeError(t.v, "rescue", { strategy_address: s1, caller: t.keeper }), 130);
});

Deno.test("vault share transfer and HODL strategy overdrafts fail 111 / 412", async () => {
  const t = await setup({ seed: 1_000n * E7, initial: [5000, 5000] });
  const { h, v, alice, usdc } = t;
  const bob = h.account();
  const shares = h.invoke<bigint>(v, "balance", { id: alice });
  const supply = h.invoke<bigint>(v, "total_supply");
  h.invoke(v, "transfer", { from: alice, to: bob, amount: 10n * E7 });
  assert.equal(h.invoke(v, "balance", { id: alice }), shares - 10n * E7);
  assert.equal(h.invoke(v, "balance", { id: bob }), 10n * E7);
  assert.equal(h.invoke(v, "total_supply"), supply);
  const ev = h.events.filter((e) => e.contract === v && scValToNative(e.topics[0]) === "transfer")
    .at(-1)!;
  assert.deepEqual(
    [scValToNative(ev.topics[1]), scValToNative(ev.topics[2]), scValToNative(ev.data)],
    [alice, bob, 10n * E7],
  );
  assert.equal(h.invokeError(v, "transfer", { from: bob, to: alice, amount: 10n * E7 + 1n }), 111);
  assert.throws(
    () => h.invoke(v, "transfer", { from: bob, to: alice, amount: -1n }),
    /negative amount is not allowed/,
  );

  // A strategy holder withdrawing one unit more than its shares are worth: 412.
  const s = t.strategies[0];
  assert.equal(h.invokeError(s, "withdraw", { amount: 1n, from: bob, to: bob }), 412);
  h.invoke(usdc, "mint", { to: bob, amount: 50n * E7 });
  h.invoke(usdc, "approve", { from: bob, spender: s, amount: 50n * E7, expiration_ledger: 1000 });
  assert.equal(h.invoke(s, "deposit", { amount: 50n * E7, from: bob }), 50n * E7);
  assert.equal(h.invokeError(s, "withdraw", { amount: 50n * E7 + 1n, from: bob, to: bob }), 412);
  assert.equal(h.invoke(s, "withdraw", { amount: 50n * E7, from: bob, to: bob }), 0n);
  assert.equal(h.invoke(s, "balance", { from: v }), 500n * E7);
});
