/**
 * Vault over JSON-RPC: `contract.Client` with real signatures against the local node.
 * Covers the flash table (contracts/README.md, issue 12) row by row, the vault's typed errors,
 * deposits, withdrawals and cooldowns, the bounded admin, and the events. Flashes use the
 * scriptable test executor (`testing/scripted_executor.ts`).
 */
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import { Keypair } from "@stellar/stellar-sdk";
import { MIN_LIQUIDITY } from "@vigil/contracts/vault/spec";
import { createWasmContract } from "@vigil/contracts/deploy/net";
import { script, type Step } from "@vigil/testing/scripted_executor";
import {
  contractEvents,
  expectAuthFailure,
  expectErr,
  expectHostErr,
  flashArgs,
  ok,
  send,
  TX_OPTS,
  USDC,
  type VigilFixture,
  withVigil,
} from "@vigil/testing/contracts/vigil_fixture";
import { deployFixture } from "@vigil/testing/contracts/mod";

const T = TX_OPTS;

/** A depositor with `dep` USDC in the vault and a registered keeper holding `keeperUsdc`. */
async function seeded(f: VigilFixture, dep = 5_000n * USDC, keeperUsdc = 1_000n * USDC) {
  const alice = await f.user(10_000_000n * USDC);
  const keeper = await f.user(100n * USDC + keeperUsdc);
  const av = await f.client(f.vault, alice);
  const kv = await f.client(f.vault, keeper);
  const kr = await f.client(f.registry, keeper);
  await send(await av.deposit({ depositor: alice.publicKey(), amount: dep }, T));
  await send(await kr.register({ operator: keeper.publicKey(), name: "keeper-1" }, T));
  return { alice, keeper, av, kv, kr };
}

const repayAll: Step = { op: "repay_all" };

/** ceil(a / b) for a ≥ 0, b > 0. */
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

async function state(f: VigilFixture) {
  const c = await f.client(f.vault, await f.user());
  return ok<{
    total_usdc: bigint;
    total_shares: bigint;
    total_profit: bigint;
    active_liq: bigint;
    locked_profit: bigint;
    unlock_end: bigint;
  }>(await c.get_state(T));
}

Deno.test("vault: wired to the registry and USDC with the testnet limits and issue 20's defaults", async () => {
  await withVigil(async (f) => {
    const c = await f.client(f.vault, await f.user());
    assert.equal(ok(await c.get_registry(T)), f.registry);
    assert.equal(ok(await c.get_usdc(T)), f.usdc);
    assert.deepEqual(ok(await c.get_config(T)), {
      deposit_cap: 10_000_000n * USDC,
      withdraw_cooldown: 3600n,
      max_draw_per_keeper: 10_000n * USDC,
      min_fill_profit: 1n * USDC,
      policy_delay: 72n * 3600n,
      profit_unlock_secs: 86_400n,
    });
    assert.deepEqual(ok(await c.get_state(T)), {
      total_usdc: 0n,
      total_shares: 0n,
      total_profit: 0n,
      active_liq: 0n,
      locked_profit: 0n,
      unlock_end: 0n,
    });
    // The deployment lists Vigil's liquidator (deploy plumbing) and the fixture's admin added
    // the test executor (a queued change, in force after the 72 h delay); no pool, router or hop
    // token on this chain without a market.
    assert.deepEqual(ok(await c.get_flash_policy(T)), {
      executors: [f.liquidator, f.executor],
      max_slippage_bps: 300,
      pools: [],
      routers: [],
      tokens: [],
    });
    assert.equal(ok(await c.get_pending_flash_policy(T)) ?? null, null);
    assert.equal(ok(await c.get_pending_config(T)) ?? null, null);
    assert.equal(ok(await c.get_admin(T)), f.admin.publicKey());
    assert.equal(ok(await c.get_pending_admin(T)) ?? null, null);
    // The one-time wiring cannot be redone, even by the admin.
    const admin = await f.client(f.vault, f.admin);
    expectErr(await admin.set_registry({ registry: f.vault }, T), "AlreadyInitialized");
  }, { policy_delay: 72n * 3600n });
});

Deno.test("vault: NotInit when no registry address is stored", async () => {
  await withVigil(async (f) => {
    const deployer = Keypair.random();
    await f.node.fund(deployer.publicKey());
    const unwired = await createWasmContract({
      rpcUrl: f.node.rpcUrl,
      secret: deployer.secret(),
      name: "vault",
      args: {
        admin: f.admin.publicKey(),
        usdc: f.usdc,
        config: {
          deposit_cap: 1_000n * USDC,
          withdraw_cooldown: 0n,
          max_draw_per_keeper: 100n * USDC,
          min_fill_profit: 0n,
          policy_delay: 3600n,
          profit_unlock_secs: 0n,
        },
        registry: null,
        policy: {
          executors: [f.executor],
          max_slippage_bps: 0,
          pools: [],
          routers: [],
          tokens: [],
        },
      },
    });
    const alice = await f.user(100n * USDC);
    const c = await f.client(unwired, alice);
    assert.equal(ok(await c.get_registry(T)) ?? null, null);
    // Deposits do not need the registry…
    assert.equal(
      await send(await c.deposit({ depositor: alice.publicKey(), amount: 10n * USDC }, T)),
      10n * USDC - MIN_LIQUIDITY,
    );
    // …flash does (checked before the amount).
    expectErr(await c.flash(flashArgs(f, alice.publicKey(), 1n * USDC, [repayAll]), T), "NotInit");
    expectErr(await c.flash(flashArgs(f, alice.publicKey(), 0n, []), T), "NotInit");
    // Wiring later is admin-only and one-time.
    const adminC = await f.client(unwired, f.admin);
    await send(await adminC.set_registry({ registry: f.registry }, T));
    expectErr(await adminC.set_registry({ registry: f.registry }, T), "AlreadyInitialized");
  });
});

Deno.test("vault: deposit mints shares, moves USDC, locks the minimum liquidity", async () => {
  await withVigil(async (f) => {
    const alice = await f.user(1_000n * USDC);
    const bob = await f.user(1_000n * USDC);
    const a = await f.client(f.vault, alice);
    const b = await f.client(f.vault, bob);
    const minted = await send<bigint>(
      await a.deposit({ depositor: alice.publicKey(), amount: 100n * USDC }, T),
    );
    assert.equal(minted, 100n * USDC - MIN_LIQUIDITY);
    assert.equal(await f.balance(alice.publicKey()), 900n * USDC);
    assert.equal(await f.balance(f.vault), 100n * USDC);
    const rec = ok<Record<string, bigint>>(
      await a.get_depositor({ depositor: alice.publicKey() }, T),
    );
    assert.equal(rec.shares, minted);
    assert.equal(rec.deposited, 100n * USDC);
    assert.equal(rec.locked_shares, minted);
    assert.equal(rec.unlock_at - rec.last_deposit_at, 3600n);
    // The locked minimum sits in the vault's own record: shares still sum to total_shares.
    const own = ok<Record<string, bigint>>(await a.get_depositor({ depositor: f.vault }, T));
    assert.equal(own.shares, MIN_LIQUIDITY);
    // A second depositor at price 1 gets 1:1.
    assert.equal(
      await send(await b.deposit({ depositor: bob.publicKey(), amount: 50n * USDC }, T)),
      50n * USDC,
    );
    const st = await state(f);
    assert.equal(st.total_usdc, 150n * USDC);
    assert.equal(st.total_shares, 150n * USDC);
    assert.deepEqual(ok(await b.balance({ depositor: bob.publicKey() }, T)), {
      shares: 50n * USDC,
      usdc_value: 50n * USDC,
    });
    // A stranger's record is all zero (not an error).
    const none = ok<Record<string, bigint>>(
      await b.get_depositor({ depositor: (await f.user()).publicKey() }, T),
    );
    assert.equal(none.shares, 0n);
    assert.equal(none.deposited, 0n);
  });
});

Deno.test("vault: deposit errors (InvalidAmount, ZeroShares, DepositCapExceeded, host error, Unauthorized)", async () => {
  await withVigil(async (f) => {
    const alice = await f.user(2_000n * USDC);
    const a = await f.client(f.vault, alice);
    expectErr(await a.deposit({ depositor: alice.publicKey(), amount: 0n }, T), "InvalidAmount");
    expectErr(await a.deposit({ depositor: alice.publicKey(), amount: -5n }, T), "InvalidAmount");
    // The first deposit must exceed the locked minimum.
    expectErr(
      await a.deposit({ depositor: alice.publicKey(), amount: MIN_LIQUIDITY }, T),
      "ZeroShares",
    );
    expectErr(
      await a.deposit({ depositor: alice.publicKey(), amount: 1_000n * USDC + 1n }, T),
      "DepositCapExceeded",
    );
    await send(await a.deposit({ depositor: alice.publicKey(), amount: 1_000n * USDC }, T));
    // Exactly at the cap is fine; one unit more is not.
    expectErr(
      await a.deposit({ depositor: alice.publicKey(), amount: 1n }, T),
      "DepositCapExceeded",
    );
    // More than the balance: the token transfer fails (host error, not typed). (A higher cap is
    // a queued change: in force after policy_delay.)
    const poor = await f.user(1n * USDC);
    const p = await f.client(f.vault, poor);
    const cfg = ok<Record<string, bigint>>(await a.get_config(T));
    await f.node.invoke(f.vault, "set_config", {
      config: { ...cfg, deposit_cap: 10_000n * USDC, max_draw_per_keeper: 10n * USDC },
    }, { source: f.admin.publicKey() });
    await f.advanceTime(Number(cfg.policy_delay));
    expectHostErr(
      await p.deposit({ depositor: poor.publicKey(), amount: 2n * USDC }, T),
      /Error\(Contract, #10\)/,
    );
    // Nobody deposits on behalf of the vault's own (locked) record.
    expectErr(await a.deposit({ depositor: f.vault, amount: 10n * USDC }, T), "Unauthorized");
  }, { deposit_cap: 1_000n * USDC });
});

Deno.test("vault: ZeroShares once the share price exceeds the deposit", async () => {
  // No profit unlock period: the profit is in the share price at once.
  await withVigil(async (f) => {
    const { alice, kv, keeper } = await seeded(f, 1n * USDC);
    // A flash of 1 unit repaid with 100 USDC profit: the price rises to ~101 units/share.
    await send(
      await kv.flash(
        flashArgs(f, keeper.publicKey(), 1n, [{
          op: "pay",
          to: f.vault,
          amount: 100n * USDC + 1n,
        }]),
        T,
      ),
    );
    const a = await f.client(f.vault, alice);
    expectErr(await a.deposit({ depositor: alice.publicKey(), amount: 100n }, T), "ZeroShares");
  }, { profit_unlock_secs: 0n });
});

Deno.test("vault: withdraw after the cooldown; cooldown and shares errors; never blocked by keepers", async () => {
  await withVigil(async (f) => {
    const { alice, av } = await seeded(f, 5_000n * USDC);
    const me = alice.publicKey();
    const rec = ok<Record<string, bigint>>(await av.get_depositor({ depositor: me }, T));
    expectErr(await av.withdraw({ depositor: me, shares: 0n }, T), "InvalidAmount");
    expectErr(
      await av.withdraw({ depositor: me, shares: rec.shares + 1n }, T),
      "InsufficientShares",
    );
    expectErr(await av.withdraw({ depositor: me, shares: 1n }, T), "WithdrawCooldown");
    await f.advanceTime(3601);
    // Nothing is ever deployed between transactions: the whole pool is withdrawable.
    const before = await f.balance(me);
    const paid = await send<bigint>(await av.withdraw({ depositor: me, shares: 1_000n * USDC }, T));
    assert.equal(paid, 1_000n * USDC);
    assert.equal(await f.balance(me), before + paid);
    const st = await state(f);
    assert.equal(st.active_liq, 0n);
    assert.equal(await f.balance(f.vault), st.total_usdc);
    // A top-up locks only the new shares: the matured ones stay withdrawable, the new ones not.
    const minted = await send<bigint>(await av.deposit({ depositor: me, amount: 100n * USDC }, T));
    const r2 = ok<Record<string, bigint>>(await av.get_depositor({ depositor: me }, T));
    assert.equal(r2.locked_shares, minted);
    assert.equal(
      await send(await av.withdraw({ depositor: me, shares: r2.shares - minted }, T)),
      r2.shares - minted,
    );
    expectErr(await av.withdraw({ depositor: me, shares: 1n }, T), "WithdrawCooldown");
    await f.advanceTime(3601);
    assert.equal(await send(await av.withdraw({ depositor: me, shares: minted }, T)), minted);
    // Nobody withdraws the vault's locked minimum.
    expectErr(await av.withdraw({ depositor: f.vault, shares: 1n }, T), "Unauthorized");
  }, { withdraw_cooldown: 3600n });
});

Deno.test("flash row: registered keeper, executor repays more -> profit booked, counters, one transaction", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr } = await seeded(f);
    const k = keeper.publicKey();
    const before = await state(f);
    const kBefore = await f.balance(k);
    const vBefore = await f.balance(f.vault);
    const amount = 3_000n * USDC;
    const profit = await send<bigint>(
      await kv.flash(
        flashArgs(f, k, amount, [{ op: "pay", to: f.vault, amount: amount + 25n * USDC }], 420n),
        T,
      ),
    );
    assert.equal(profit, 25n * USDC);
    // The keeper paid the 25 USDC (its executor's "liquidation" here is its own money).
    assert.equal(await f.balance(k), kBefore - 25n * USDC);
    assert.equal(await f.balance(f.vault), vBefore + 25n * USDC);
    const after = await state(f);
    assert.equal(after.total_usdc, before.total_usdc + 25n * USDC);
    assert.equal(after.total_profit, before.total_profit + 25n * USDC);
    assert.equal(after.total_shares, before.total_shares);
    assert.equal(after.active_liq, 0n);
    // The profit is locked: it enters the share price linearly over profit_unlock_secs from the
    // flash's ledger time (a read simulates at the next ledger's time, now + 1).
    const from = after.unlock_end - 86_400n;
    assert.ok(from <= f.now() && from > f.now() - 10n, "unlock_end = flash time + 86,400 s");
    const left = after.unlock_end - (f.now() + 1n);
    assert.equal(after.locked_profit, ceilDiv(25n * USDC * left, 86_400n));
    assert.equal(await f.balance(f.vault), after.total_usdc);
    const info = ok<Record<string, bigint>>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 1n);
    assert.equal(info.successful_fills, 1n);
    assert.equal(info.total_profit, 25n * USDC);
    assert.equal(info.avg_response_time_ms, 420n);
    assert.equal(info.response_count, 1n);
    assert.equal(ok(await kv.get_total_loss(T)), 0n);
  });
});

Deno.test("flash row: exact repayment -> profit 0, books unchanged, a settled execution but no fill (below min_fill_profit)", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr } = await seeded(f);
    const k = keeper.publicKey();
    const before = await state(f);
    const kBefore = await f.balance(k);
    assert.equal(
      await send<bigint>(
        await kv.flash(
          flashArgs(f, k, 10_000n * USDC > before.total_usdc ? before.total_usdc : 10_000n * USDC, [
            repayAll,
          ]),
          T,
        ),
      ),
      0n,
    );
    assert.deepEqual(await state(f), before);
    assert.equal(await f.balance(k), kBefore);
    const info = ok<Record<string, bigint>>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 1n);
    assert.equal(info.successful_fills, 0n, "profit 0 < min_fill_profit (1 USDC): not a fill");
    assert.equal(info.response_count, 0n);
    assert.equal(info.total_profit, 0n);
  });
});

Deno.test("flash errors: InvalidAmount, NotRegistered, InsufficientLiquidity, DrawLimitExceeded (per flash), FlashNotRepaid", async () => {
  await withVigil(async (f) => {
    const { keeper, kv } = await seeded(f, 20_000n * USDC);
    const k = keeper.publicKey();
    const before = await state(f);
    expectErr(await kv.flash(flashArgs(f, k, 0n, []), T), "InvalidAmount");
    expectErr(await kv.flash(flashArgs(f, k, -1n, []), T), "InvalidAmount");
    const stranger = await f.user(1_000n * USDC);
    const s = await f.client(f.vault, stranger);
    expectErr(
      await s.flash(flashArgs(f, stranger.publicKey(), 10n * USDC, [repayAll]), T),
      "NotRegistered",
    );
    expectErr(
      await kv.flash(flashArgs(f, k, 20_000n * USDC + 1n, [repayAll]), T),
      "InsufficientLiquidity",
    );
    expectErr(
      await kv.flash(flashArgs(f, k, 10_000n * USDC + 1n, [repayAll]), T),
      "DrawLimitExceeded",
    );
    // The cap is per flash: two flashes at the cap in a row both pass (nothing accumulates).
    await send(await kv.flash(flashArgs(f, k, 10_000n * USDC, [repayAll]), T));
    await send(await kv.flash(flashArgs(f, k, 10_000n * USDC, [repayAll]), T));
    // Return less (one unit short) and return nothing: FlashNotRepaid, nothing moves.
    expectErr(
      await kv.flash(
        flashArgs(f, k, 5_000n * USDC, [{ op: "pay", to: f.vault, amount: 5_000n * USDC - 1n }]),
        T,
      ),
      "FlashNotRepaid",
    );
    expectErr(await kv.flash(flashArgs(f, k, 5_000n * USDC, []), T), "FlashNotRepaid");
    assert.deepEqual(await state(f), before);
    assert.equal(await f.balance(f.vault), before.total_usdc);
  });
});

Deno.test("flash policy: an executor the admin did not list is refused (ExecutorNotAllowed) before anything moves", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr } = await seeded(f);
    const k = keeper.publicKey();
    const before = await state(f);
    const kBefore = await f.balance(k);
    // A second copy of the very same executor code, not listed: refused, even for a flash that
    // would repay with profit (the vault cannot know what an unlisted executor keeps).
    const rogue = await deployFixture(f.node, "scripted_executor");
    const args = (executor: string, steps: Step[]) => ({
      ...flashArgs(f, k, 100n * USDC, steps),
      executor,
    });
    expectErr(
      await kv.flash(args(rogue, [{ op: "pay", to: f.vault, amount: 101n * USDC }]), T),
      "ExecutorNotAllowed",
    );
    expectErr(await kv.flash(args(rogue, [repayAll]), T), "ExecutorNotAllowed");
    // Not even the vault, the registry or the USDC SAC as "executor".
    for (const c of [f.vault, f.registry, f.usdc]) {
      expectErr(await kv.flash(args(c, [repayAll]), T), "ExecutorNotAllowed");
    }
    // The admin lists it: the same flash settles, and the executor sees the stored policy
    // (require_listed traps unless the vault forwarded a policy naming it).
    const p = await f.policy();
    await f.setPolicy({ ...p, executors: [...p.executors, rogue] });
    assert.equal(
      await send(
        await kv.flash(
          args(rogue, [{ op: "require_listed" }, { op: "pay", to: f.vault, amount: 101n * USDC }]),
          T,
        ),
      ),
      1n * USDC,
    );
    // De-listed again (the admin removes the test executor too): refused once more.
    await f.setPolicy({ ...p, executors: [f.liquidator] });
    expectErr(await kv.flash(args(rogue, [repayAll]), T), "ExecutorNotAllowed");
    expectErr(await kv.flash(flashArgs(f, k, 1n * USDC, [repayAll]), T), "ExecutorNotAllowed");
    const after = await state(f);
    assert.equal(after.total_usdc, before.total_usdc + 1n * USDC, "only the listed flash booked");
    assert.equal(await f.balance(k), kBefore - 1n * USDC);
    const info = ok<Record<string, bigint>>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.successful_fills, 1n, "refused flashes are not counted");
  });
});

Deno.test("flash policy: set_flash_policy is admin-only and bounded (bps <= 1000, <= 16 per list); a widening change is queued, a restricting one instant; round trip; events", async () => {
  await withVigil(async (f) => {
    const admin = await f.client(f.vault, f.admin);
    const addrs = (n: number) =>
      Array.from(
        { length: n },
        () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never),
      );
    const sixteen = addrs(16);
    const p = {
      executors: [f.liquidator, ...sixteen.slice(0, 15)],
      max_slippage_bps: 1_000,
      pools: sixteen,
      routers: [(await f.user()).publicKey()],
      tokens: sixteen,
    };
    assert.equal(await f.setPolicy(p), true, "a wider policy is queued (the fixture applied it)");
    assert.deepEqual(ok(await admin.get_flash_policy(T)), p, "round trip (order kept)");
    // Out of bounds: InvalidConfig, and the stored policy is unchanged.
    const extra = addrs(1)[0];
    for (
      const bad of [
        { ...p, max_slippage_bps: 1_001 },
        { ...p, max_slippage_bps: 10_000 },
        { ...p, executors: [...p.executors, extra] },
        { ...p, pools: [...p.pools, extra] },
        { ...p, routers: [...sixteen, extra] },
        { ...p, tokens: [...p.tokens, extra] },
      ]
    ) {
      expectErr(await admin.set_flash_policy({ policy: bad }, T), "InvalidConfig");
    }
    assert.deepEqual(ok(await admin.get_flash_policy(T)), p);
    assert.equal(ok(await admin.get_pending_flash_policy(T)) ?? null, null);
    // An empty policy only restricts: it applies at once and stops every flash.
    const empty = { executors: [], max_slippage_bps: 0, pools: [], routers: [], tokens: [] };
    assert.equal(await f.setPolicy(empty), false, "restricting: instant");
    assert.deepEqual(ok(await admin.get_flash_policy(T)), empty);
    // A non-admin has no authorization to present for the admin's address.
    const eve = await f.user();
    const e = await f.client(f.vault, eve);
    await expectAuthFailure(
      f,
      await e.set_flash_policy({ policy: { ...p, executors: [f.executor] } }, T),
      eve,
      f.admin.publicKey(),
    );
    assert.deepEqual(ok(await e.get_flash_policy(T)), empty, "eve's attempt changed nothing");
    assert.equal(ok(await e.get_pending_flash_policy(T)) ?? null, null);
    // Events: `set_flash_policy` at construction and for the instant change, `policy_queued`
    // [policy, applies_at] for the fixture's listing of the test executor and for `p`.
    const evs = await contractEvents(f.server, f.vault);
    const named = (n: string) => evs.filter((ev) => ev.topics[0] === n);
    assert.equal(named("set_flash_policy").length, 2);
    assert.deepEqual(named("set_flash_policy").at(-1)!.data, empty);
    const queued = named("policy_queued");
    assert.equal(queued.length, 2);
    const [qp, at] = queued[1].data as [unknown, bigint];
    assert.deepEqual(qp, p);
    assert.ok(at > 0n);
  });
});

Deno.test("flash: StakeBelowMinimum after the admin raised min_stake; re-staking restores it", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr } = await seeded(f);
    const k = keeper.publicKey();
    const admin = await f.client(f.registry, f.admin);
    await send(await admin.set_config({ min_stake: 200n * USDC }, T));
    expectErr(await kv.flash(flashArgs(f, k, 10n * USDC, [repayAll]), T), "StakeBelowMinimum");
    await send(await kr.deregister({ operator: k }, T));
    await send(await kr.register({ operator: k, name: "again" }, T));
    assert.equal(await send(await kv.flash(flashArgs(f, k, 10n * USDC, [repayAll]), T)), 0n);
  });
});

Deno.test("flash: needs the keeper's authorization (a stranger naming a keeper fails on chain)", async () => {
  await withVigil(async (f) => {
    const { keeper } = await seeded(f);
    const eve = await f.user(10n * USDC);
    const e = await f.client(f.vault, eve);
    const before = await state(f);
    await expectAuthFailure(
      f,
      await e.flash(flashArgs(f, keeper.publicKey(), 100n * USDC, [repayAll]), T),
      eve,
      keeper.publicKey(),
    );
    assert.deepEqual(await state(f), before);
  });
});

Deno.test("vault: ZeroPayout and PoolInsolvent are unreachable: the price never falls below one unit", async () => {
  await withVigil(async (f) => {
    const { alice, av, keeper, kv } = await seeded(f, 1_001n);
    // The smallest possible pool (1 free share + 1000 locked) pays 1 unit for 1 share.
    await f.advanceTime(3601);
    const st = await state(f);
    assert.ok(st.total_usdc * 1n >= st.total_shares, "price >= 1 unit per share");
    assert.equal(
      await send(await av.withdraw({ depositor: alice.publicKey(), shares: 1n }, T)),
      1n,
    );
    // No flash can lower total_usdc: the only attempt to do so reverts.
    expectErr(await kv.flash(flashArgs(f, keeper.publicKey(), 1_000n, []), T), "FlashNotRepaid");
    const after = await state(f);
    assert.equal(after.total_usdc, 1_000n);
    assert.equal(after.total_shares, 1_000n);
    // A deposit into the minimal pool still mints (no PoolInsolvent: assets never reach 0).
    assert.equal(
      await send(await av.deposit({ depositor: alice.publicKey(), amount: 5n * USDC }, T)),
      5n * USDC,
    );
  });
});

Deno.test("vault: the admin's brakes (a lower deposit_cap / max_draw_per_keeper) apply at once; others cannot change the config", async () => {
  await withVigil(async (f) => {
    const admin = await f.client(f.vault, f.admin);
    const cfg0 = ok<Record<string, bigint>>(await admin.get_config(T));
    const cfg = { ...cfg0, deposit_cap: 1_000n * USDC, max_draw_per_keeper: 0n };
    await send(await admin.set_config({ config: cfg }, T));
    assert.deepEqual(ok(await admin.get_config(T)), cfg, "in force at once");
    assert.equal(ok(await admin.get_pending_config(T)) ?? null, null, "nothing queued");
    // A non-admin has no authorization to present for the admin's address.
    const eve = await f.user();
    const e = await f.client(f.vault, eve);
    await expectAuthFailure(f, await e.set_config({ config: cfg0 }, T), eve, f.admin.publicKey());
    assert.deepEqual(ok(await e.get_config(T)), cfg);
    assert.equal(ok(await e.get_pending_config(T)) ?? null, null);
    // max_draw_per_keeper = 0 is the circuit breaker: no flash passes.
    const { keeper, kv } = await seeded(f, 100n * USDC);
    expectErr(
      await kv.flash(flashArgs(f, keeper.publicKey(), 1n, [repayAll]), T),
      "DrawLimitExceeded",
    );
  });
});

Deno.test("vault: events for deposit and flash", async () => {
  await withVigil(async (f) => {
    const { alice, keeper, kv } = await seeded(f, 1_000n * USDC);
    await send(
      await kv.flash(
        flashArgs(f, keeper.publicKey(), 10n * USDC, [{
          op: "pay",
          to: f.vault,
          amount: 11n * USDC,
        }], 7n),
        T,
      ),
    );
    const byName = new Map<string, { topics: unknown[]; data: unknown }>();
    for (const e of await contractEvents(f.server, f.vault)) byName.set(String(e.topics[0]), e);
    const dep = byName.get("deposit")!;
    assert.deepEqual(dep.topics, ["deposit", alice.publicKey()]);
    assert.deepEqual(dep.data, [1_000n * USDC, 1_000n * USDC - MIN_LIQUIDITY]);
    const fl = byName.get("flash")!;
    assert.deepEqual(fl.topics, ["flash", keeper.publicKey()]);
    assert.deepEqual(fl.data, [10n * USDC, 11n * USDC, 1n * USDC, f.executor]);
    assert.ok(byName.has("set_registry"));
    for (const gone of ["draw", "return", "slash"]) assert.ok(!byName.has(gone), gone);
  });
});

const I64 = (1n << 63n) - 1n;

Deno.test("vault: MathOverflow when share math leaves i128 (in-process, contract-address balances)", async () => {
  await withVigil(async (f) => {
    const actor = async (amount: bigint) => {
      const id = StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
      await f.mint(id, amount);
      return id;
    };
    // A contract address can hold more than i64 of a SAC token.
    const [a, k] = [await actor(9n * 10n ** 18n), await actor(10n ** 21n)];
    await f.node.invoke(f.vault, "deposit", { depositor: a, amount: 9n * 10n ** 18n });
    await f.node.invoke(f.registry, "register", { operator: k, name: "k" });
    // A flash that "repays" 1e20 more than it borrowed: total_usdc ≈ 1.09e20 (an i128)…
    const profit = await f.node.invoke<bigint>(f.vault, "flash", {
      keeper: k,
      executor: f.executor,
      amount: 1n,
      data: script({ op: "pay", to: f.vault, amount: 1n + 10n ** 20n }),
      response_time_ms: 0n,
    });
    assert.equal(profit, 10n ** 20n);
    // …and a withdrawal needs shares × total_usdc ≈ 9.8e38 > i128::MAX: refused, typed.
    await assert.rejects(
      f.node.invoke(f.vault, "withdraw", { depositor: a, shares: 9n * 10n ** 18n - 1000n }),
      /Error\(Contract, #108\)/,
    );
  }, {
    deposit_cap: I64,
    withdraw_cooldown: 0n,
    max_draw_per_keeper: I64,
    // Unlocked at once: the withdrawal prices shares with the whole 1e20 profit.
    profit_unlock_secs: 0n,
  });
});

Deno.test("vault: events for init, withdraw and set_config", async () => {
  await withVigil(async (f) => {
    const { alice, av } = await seeded(f, 1_000n * USDC);
    const a = alice.publicKey();
    const events = () => contractEvents(f.server, f.vault);
    const one = async (name: string) => {
      const hits = (await events()).filter((e) => e.topics[0] === name);
      assert.equal(hits.length, 1, `${name} events: ${hits.length}`);
      return hits[0];
    };

    // init: admin, usdc, config.
    const init = await one("init");
    assert.deepEqual(init.data.slice(0, 2), [f.admin.publicKey(), f.usdc]);

    // withdraw: [shares, amount] under the depositor's address.
    await f.advanceTime(3601);
    const paid = await send<bigint>(await av.withdraw({ depositor: a, shares: 100n * USDC }, T));
    const w = await one("withdraw");
    assert.deepEqual(w.topics, ["withdraw", a]);
    assert.deepEqual(w.data, [100n * USDC, paid]);

    // set_config (a brake, in force at once): the new config.
    const admin = await f.client(f.vault, f.admin);
    const cfg0 = ok<Record<string, bigint>>(await admin.get_config(T));
    const cfg: Record<string, bigint> = {
      ...cfg0,
      deposit_cap: 2_000n * USDC,
      max_draw_per_keeper: 500n * USDC,
    };
    await send(await admin.set_config({ config: cfg }, T));
    assert.deepEqual((await one("set_config")).data, cfg);
    // config_queued (any other change): [config, applies_at].
    const later = { ...cfg, withdraw_cooldown: 60n };
    await send(await admin.set_config({ config: later }, T));
    const q = await one("config_queued");
    assert.deepEqual(q.data, [later, f.now() + cfg.policy_delay]);
    assert.deepEqual(ok(await admin.get_pending_config(T)), {
      applies_at: f.now() + cfg.policy_delay,
      config: later,
    });
  });
});
