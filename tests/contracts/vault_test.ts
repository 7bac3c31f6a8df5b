/**
 * Vault over JSON-RPC: `contract.Client` with real signatures against the local node.
 * Covers the spec's draw-lifecycle table row by row, the vault's typed errors, deposits,
 * withdrawals and cooldowns, the bounded admin, and the events.
 */
import assert from "node:assert/strict";
import { scValToNative, StrKey, type xdr } from "@stellar/stellar-sdk";
import { vaultContract } from "../../contracts/vault/mod.ts";
import { MIN_LIQUIDITY } from "../../contracts/vault/mod.ts";
import { recoverStaleDraw } from "../../keeper/cycle.ts";
import { ChainRpc } from "../../keeper/chain/rpc.ts";
import { VaultContract } from "../../keeper/vault_client.ts";
import {
  expectAuthFailure,
  expectErr,
  expectHostErr,
  ok,
  send,
  TX_OPTS,
  USDC,
  type VigilFixture,
  withVigil,
} from "./vigil_fixture.ts";

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

async function state(f: VigilFixture) {
  const c = await f.client(f.vault, await f.user());
  return ok<{ total_usdc: bigint; total_shares: bigint; total_profit: bigint; active_liq: bigint }>(
    await c.get_state(T),
  );
}

Deno.test("vault: wired to the registry and USDC with the testnet limits", async () => {
  await withVigil(async (f) => {
    const c = await f.client(f.vault, await f.user());
    assert.equal(ok(await c.get_registry(T)), f.registry);
    assert.equal(ok(await c.get_usdc(T)), f.usdc);
    assert.deepEqual(ok(await c.get_config(T)), {
      deposit_cap: 10_000_000n * USDC,
      withdraw_cooldown: 3600n,
      max_draw_per_keeper: 10_000n * USDC,
    });
    assert.deepEqual(ok(await c.get_state(T)), {
      total_usdc: 0n,
      total_shares: 0n,
      total_profit: 0n,
      active_liq: 0n,
    });
    // The one-time wiring cannot be redone, even by the admin.
    const admin = await f.client(f.vault, f.admin);
    expectErr(await admin.set_registry({ registry: f.vault }, T), "AlreadyInitialized");
  });
});

Deno.test("vault: NotInit when no registry address is stored", async () => {
  await withVigil(async (f) => {
    const unwired = await f.node.deployContract(vaultContract, {
      admin: f.admin.publicKey(),
      usdc: f.usdc,
      config: {
        deposit_cap: 1_000n * USDC,
        withdraw_cooldown: 0n,
        max_draw_per_keeper: 100n * USDC,
      },
      registry: null,
    });
    const alice = await f.user(100n * USDC);
    const c = await f.client(unwired, alice);
    assert.equal(ok(await c.get_registry(T)) ?? null, null);
    // Deposits do not need the registry…
    assert.equal(
      await send(await c.deposit({ depositor: alice.publicKey(), amount: 10n * USDC }, T)),
      10n * USDC - MIN_LIQUIDITY,
    );
    // …draw and return_proceeds do.
    expectErr(await c.draw({ keeper: alice.publicKey(), amount: 1n * USDC }, T), "NotInit");
    expectErr(
      await c.return_proceeds({ keeper: alice.publicKey(), amount: 1n, response_time_ms: 1n }, T),
      "NotInit",
    );
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
    // More than the balance: the token transfer fails (host error, not typed).
    const poor = await f.user(1n * USDC);
    const p = await f.client(f.vault, poor);
    await f.node.invoke(f.vault, "set_config", {
      config: {
        deposit_cap: 10_000n * USDC,
        withdraw_cooldown: 3600n,
        max_draw_per_keeper: 10n * USDC,
      },
    }, { source: f.admin.publicKey() });
    expectHostErr(
      await p.deposit({ depositor: poor.publicKey(), amount: 2n * USDC }, T),
      /Error\(Contract, #10\)/,
    );
    // Nobody deposits on behalf of the vault's own (locked) record.
    expectErr(await a.deposit({ depositor: f.vault, amount: 10n * USDC }, T), "Unauthorized");
  }, { deposit_cap: 1_000n * USDC });
});

Deno.test("vault: ZeroShares once the share price exceeds the deposit", async () => {
  await withVigil(async (f) => {
    const { alice, kv, keeper } = await seeded(f, 1n * USDC);
    // Draw 1 unit and return it with 100 USDC profit: the price rises to ~101 units/share.
    await send(await kv.draw({ keeper: keeper.publicKey(), amount: 1n }, T));
    await send(
      await kv.return_proceeds({
        keeper: keeper.publicKey(),
        amount: 100n * USDC + 1n,
        response_time_ms: 5n,
      }, T),
    );
    const a = await f.client(f.vault, alice);
    expectErr(await a.deposit({ depositor: alice.publicKey(), amount: 100n }, T), "ZeroShares");
  });
});

Deno.test("vault: withdraw after the cooldown; cooldown, shares and liquidity errors", async () => {
  await withVigil(async (f) => {
    const { alice, av, kv, keeper } = await seeded(f, 5_000n * USDC);
    const me = alice.publicKey();
    const rec = ok<Record<string, bigint>>(await av.get_depositor({ depositor: me }, T));
    expectErr(await av.withdraw({ depositor: me, shares: 0n }, T), "InvalidAmount");
    expectErr(
      await av.withdraw({ depositor: me, shares: rec.shares + 1n }, T),
      "InsufficientShares",
    );
    expectErr(await av.withdraw({ depositor: me, shares: 1n }, T), "WithdrawCooldown");
    await f.advanceTime(3601);
    // Deployed capital cannot leave: typed InsufficientLiquidity, not a token failure.
    await send(await kv.draw({ keeper: keeper.publicKey(), amount: 4_000n * USDC }, T));
    expectErr(
      await av.withdraw({ depositor: me, shares: 2_000n * USDC }, T),
      "InsufficientLiquidity",
    );
    const before = await f.balance(me);
    const paid = await send<bigint>(await av.withdraw({ depositor: me, shares: 1_000n * USDC }, T));
    assert.equal(paid, 1_000n * USDC);
    assert.equal(await f.balance(me), before + paid);
    const st = await state(f);
    assert.equal(await f.balance(f.vault), st.total_usdc - st.active_liq);
    // The keeper brings the capital back; then a top-up locks only the new shares: the
    // matured ones stay withdrawable, the new ones do not.
    await send(
      await kv.return_proceeds({
        keeper: keeper.publicKey(),
        amount: 4_000n * USDC,
        response_time_ms: 1n,
      }, T),
    );
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

Deno.test("draw lifecycle: no outstanding draw -> draw -> outstanding (transfer, active_liq, mark_draw)", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr } = await seeded(f);
    const k = keeper.publicKey();
    const before = await f.balance(k);
    assert.equal(ok(await kv.get_keeper_draw({ keeper: k }, T)), 0n);
    const out = await send<bigint>(await kv.draw({ keeper: k, amount: 300n * USDC }, T));
    assert.equal(out, 300n * USDC);
    assert.equal(await f.balance(k), before + 300n * USDC);
    assert.equal(ok(await kv.get_keeper_draw({ keeper: k }, T)), 300n * USDC);
    const st = await state(f);
    assert.equal(st.active_liq, 300n * USDC);
    assert.equal(st.total_usdc, 5_000n * USDC);
    assert.equal(await f.balance(f.vault), st.total_usdc - st.active_liq);
    const info = ok<Record<string, unknown>>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.has_active_draw, true);
    assert.ok((info.draw_marked_at as bigint) > 0n);
    // A draw of 0 succeeds and changes nothing (no mark_draw).
    assert.equal(await send(await kv.draw({ keeper: k, amount: 0n }, T)), 300n * USDC);
  });
});

Deno.test("draw: unregistered keeper reverts the whole draw with NotRegistered", async () => {
  await withVigil(async (f) => {
    await seeded(f);
    const stranger = await f.user();
    const s = await f.client(f.vault, stranger);
    const tx = await s.draw({ keeper: stranger.publicKey(), amount: 10n * USDC }, T);
    expectErr(tx, "NotRegistered");
    assert.equal(await f.balance(stranger.publicKey()), 0n);
    assert.equal((await state(f)).active_liq, 0n);
  });
});

Deno.test("draw errors: InvalidAmount, InsufficientLiquidity, DrawLimitExceeded (cumulative)", async () => {
  await withVigil(async (f) => {
    const { keeper, kv } = await seeded(f, 20_000n * USDC);
    const k = keeper.publicKey();
    expectErr(await kv.draw({ keeper: k, amount: -1n }, T), "InvalidAmount");
    expectErr(
      await kv.draw({ keeper: k, amount: 20_000n * USDC + 1n }, T),
      "InsufficientLiquidity",
    );
    await send(await kv.draw({ keeper: k, amount: 6_000n * USDC }, T));
    // 6,000 + 5,000 > 10,000 outstanding: refused although each draw is below the cap.
    expectErr(await kv.draw({ keeper: k, amount: 5_000n * USDC }, T), "DrawLimitExceeded");
    await send(await kv.draw({ keeper: k, amount: 4_000n * USDC }, T));
    expectErr(await kv.draw({ keeper: k, amount: 1n }, T), "DrawLimitExceeded");
  });
});

Deno.test("draw lifecycle: outstanding -> return_proceeds with profit -> none (clear_draw, record_execution)", async () => {
  await withVigil(async (f) => {
    const { alice, av, keeper, kv, kr } = await seeded(f);
    const k = keeper.publicKey();
    await send(await kv.draw({ keeper: k, amount: 200n * USDC }, T));
    const profit = await send<bigint>(
      await kv.return_proceeds({ keeper: k, amount: 230n * USDC, response_time_ms: 3200n }, T),
    );
    assert.equal(profit, 30n * USDC);
    const st = await state(f);
    assert.deepEqual(st, {
      total_usdc: 5_030n * USDC,
      total_shares: 5_000n * USDC,
      total_profit: 30n * USDC,
      active_liq: 0n,
    });
    assert.equal(await f.balance(f.vault), st.total_usdc);
    assert.equal(ok(await kv.get_keeper_draw({ keeper: k }, T)), 0n);
    const info = ok<Record<string, unknown>>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.has_active_draw, false);
    assert.equal(info.draw_marked_at, 0n);
    assert.equal(info.total_executions, 1n);
    assert.equal(info.successful_fills, 1n);
    assert.equal(info.total_profit, 30n * USDC);
    assert.equal(info.avg_response_time_ms, 3200n);
    // The profit raised the share price: alice's shares are worth more than she put in.
    const b = ok<{ shares: bigint; usdc_value: bigint }>(
      await av.balance({ depositor: alice.publicKey() }, T),
    );
    assert.ok(b.usdc_value > 5_000n * USDC - MIN_LIQUIDITY);
  });
});

Deno.test("draw lifecycle: return with no profit, and a partial return booked as a loss", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr, av } = await seeded(f);
    const k = keeper.publicKey();
    await send(await kv.draw({ keeper: k, amount: 100n * USDC }, T));
    assert.equal(
      await send(
        await kv.return_proceeds({ keeper: k, amount: 100n * USDC, response_time_ms: 1000n }, T),
      ),
      0n,
    );
    let st = await state(f);
    assert.equal(st.total_usdc, 5_000n * USDC);
    assert.equal(st.total_profit, 0n);
    // Partial: 100 drawn, 60 returned. The draw is settled, 40 is a realized loss.
    await send(await kv.draw({ keeper: k, amount: 100n * USDC }, T));
    assert.equal(
      await send(
        await kv.return_proceeds({ keeper: k, amount: 60n * USDC, response_time_ms: 3000n }, T),
      ),
      0n,
    );
    st = await state(f);
    assert.equal(st.active_liq, 0n);
    assert.equal(st.total_usdc, 4_960n * USDC);
    assert.equal(ok(await av.get_total_loss(T)), 40n * USDC);
    assert.equal(await f.balance(f.vault), st.total_usdc);
    const info = ok<Record<string, unknown>>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.has_active_draw, false);
    assert.equal(info.total_executions, 2n);
    assert.equal(info.avg_response_time_ms, 2000n);
    // Returning nothing against nothing is refused.
    expectErr(
      await kv.return_proceeds({ keeper: k, amount: 0n, response_time_ms: 0n }, T),
      "InvalidAmount",
    );
    expectErr(
      await kv.return_proceeds({ keeper: k, amount: -1n, response_time_ms: 0n }, T),
      "InvalidAmount",
    );
  });
});

Deno.test("draw lifecycle: keeper recoverStaleDraw returns USDC on hand capped at the draw", async () => {
  await withVigil(async (f) => {
    const { keeper, kv, kr } = await seeded(f, 5_000n * USDC, 0n);
    const k = keeper.publicKey();
    await send(await kv.draw({ keeper: k, amount: 500n * USDC }, T));
    // The keeper's earlier cycle spent part of the draw and never returned.
    const sink = await f.user();
    await f.node.invoke(
      f.usdc,
      "transfer",
      { from: k, to: sink.publicKey(), amount: 120n * USDC },
      { source: k },
    );
    // The daemon's own recoverStaleDraw (keeper/cycle.ts) over JSON-RPC, not a re-implementation
    // of it: it must read get_keeper_draw, cap the return at the USDC on hand and send it.
    assert.equal(ok<bigint>(await kv.get_keeper_draw({ keeper: k }, T)), 500n * USDC);
    assert.equal(await f.balance(k), 380n * USDC);
    const chain = new ChainRpc(f.node.rpcUrl, { networkPassphrase: f.passphrase });
    const warnings: string[] = [];
    const report = await recoverStaleDraw({
      chain,
      keypair: keeper,
      vault: new VaultContract(chain, keeper, f.vault),
      usdc: f.usdc,
      hooks: {
        info: () => {},
        warn: (m) => warnings.push(m),
        error: () => {},
        result: () => {},
        refresh: () => Promise.resolve(),
      },
    });
    assert.deepEqual(warnings, []);
    assert.equal(report.outstanding, 500n * USDC);
    assert.equal(report.returned, 380n * USDC, "capped at the USDC on hand");
    assert.equal(report.remaining, 0n);
    assert.equal(await f.balance(k), 0n);
    assert.equal(ok(await kv.get_keeper_draw({ keeper: k }, T)), 0n);
    const st = await state(f);
    assert.equal(st.active_liq, 0n);
    assert.equal(st.total_usdc, 4_880n * USDC);
    assert.equal(await f.balance(f.vault), st.total_usdc);
    assert.equal(
      (ok<Record<string, unknown>>(await kr.get_keeper({ operator: k }, T))).has_active_draw,
      false,
    );
  });
});

Deno.test("vault: ZeroPayout and PoolInsolvent after losses", async () => {
  await withVigil(async (f) => {
    const { alice, av, keeper, kv } = await seeded(f, 100n * USDC);
    const k = keeper.publicKey();
    // Lose 99.9999 of 100 USDC: the price falls below one unit per share.
    await send(await kv.draw({ keeper: k, amount: 100n * USDC }, T));
    await send(await kv.return_proceeds({ keeper: k, amount: 1_000n, response_time_ms: 0n }, T));
    await f.advanceTime(3601);
    expectErr(await av.withdraw({ depositor: alice.publicKey(), shares: 1n }, T), "ZeroPayout");
    // Lose everything: shares remain, assets are zero, deposits are refused.
    await send(await kv.draw({ keeper: k, amount: 1_000n }, T));
    await send(await kv.return_proceeds({ keeper: k, amount: 0n, response_time_ms: 0n }, T));
    assert.equal((await state(f)).total_usdc, 0n);
    expectErr(
      await av.deposit({ depositor: alice.publicKey(), amount: 10n * USDC }, T),
      "PoolInsolvent",
    );
  });
});

Deno.test("vault: book_slash only from the stored registry", async () => {
  await withVigil(async (f) => {
    const { keeper } = await seeded(f);
    const eve = await f.user();
    const c = await f.client(f.vault, eve);
    expectErr(
      await c.book_slash({ caller: eve.publicKey(), keeper: keeper.publicKey(), amount: 1n }, T),
      "Unauthorized",
    );
    // Naming the registry as caller does not help: the registry did not authorize it.
    await expectAuthFailure(
      f,
      await c.book_slash({ caller: f.registry, keeper: keeper.publicKey(), amount: 1n }, T),
      eve,
      f.registry,
    );
  });
});

Deno.test("vault: admin changes bounded config only; others cannot", async () => {
  await withVigil(async (f) => {
    const admin = await f.client(f.vault, f.admin);
    const cfg = { deposit_cap: 1_000n * USDC, withdraw_cooldown: 60n, max_draw_per_keeper: 0n };
    await send(await admin.set_config({ config: cfg }, T));
    assert.deepEqual(ok(await admin.get_config(T)), cfg);
    expectErr(
      await admin.set_config({ config: { ...cfg, withdraw_cooldown: 7n * 86400n + 1n } }, T),
      "InvalidConfig",
    );
    expectErr(await admin.set_config({ config: { ...cfg, deposit_cap: 0n } }, T), "InvalidConfig");
    expectErr(
      await admin.set_config({ config: { ...cfg, max_draw_per_keeper: -1n } }, T),
      "InvalidConfig",
    );
    // A non-admin has no authorization to present for the admin's address.
    const eve = await f.user();
    const e = await f.client(f.vault, eve);
    await expectAuthFailure(f, await e.set_config({ config: cfg }, T), eve, f.admin.publicKey());
    // max_draw_per_keeper = 0 is the circuit breaker: no draw passes.
    const { keeper, kv } = await seeded(f, 100n * USDC);
    expectErr(await kv.draw({ keeper: keeper.publicKey(), amount: 1n }, T), "DrawLimitExceeded");
  });
});

Deno.test("vault: events for deposit, draw, return", async () => {
  await withVigil(async (f) => {
    const { alice, keeper, kv } = await seeded(f, 1_000n * USDC);
    await send(await kv.draw({ keeper: keeper.publicKey(), amount: 10n * USDC }, T));
    await send(
      await kv.return_proceeds({
        keeper: keeper.publicKey(),
        amount: 11n * USDC,
        response_time_ms: 7n,
      }, T),
    );
    const res = await f.server.getEvents({
      startLedger: 1,
      filters: [{ type: "contract", contractIds: [f.vault] }],
      limit: 100,
    });
    const byName = new Map<string, { topics: unknown[]; data: unknown }>();
    for (const e of res.events) {
      const topics = e.topic.map((t: xdr.ScVal) => scValToNative(t));
      byName.set(String(topics[0]), { topics, data: scValToNative(e.value) });
    }
    const dep = byName.get("deposit")!;
    assert.deepEqual(dep.topics, ["deposit", alice.publicKey()]);
    assert.deepEqual(dep.data, [1_000n * USDC, 1_000n * USDC - MIN_LIQUIDITY]);
    assert.deepEqual(byName.get("draw")!.data, [10n * USDC, 10n * USDC]);
    assert.deepEqual(byName.get("return")!.data, [11n * USDC, 10n * USDC, 1n * USDC, 0n]);
    assert.ok(byName.has("set_registry"));
  });
});

Deno.test("vault: MathOverflow when share math leaves i128 (in-process, after a near-total loss)", async () => {
  await withVigil(async (f) => {
    const I64 = (1n << 63n) - 1n;
    await f.node.invoke(f.vault, "set_config", {
      config: { deposit_cap: I64, withdraw_cooldown: 0n, max_draw_per_keeper: I64 },
    }, { source: f.admin.publicKey() });
    const actor = async (amount: bigint) => {
      const id = StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
      await f.mint(id, amount);
      return id;
    };
    const [a, b, c, k] = [
      await actor(9n * 10n ** 18n),
      await actor(10n ** 18n),
      await actor(8n * 10n ** 18n),
      await actor(100n * USDC),
    ];
    await f.node.invoke(f.vault, "deposit", { depositor: a, amount: 9n * 10n ** 18n });
    await f.node.invoke(f.registry, "register", { operator: k, name: "k" });
    await f.node.invoke(f.vault, "draw", { keeper: k, amount: 9n * 10n ** 18n - 1n });
    await f.node.invoke(f.vault, "return_proceeds", {
      keeper: k,
      amount: 0n,
      response_time_ms: 0n,
    });
    // One unit backs 9e18 shares: the next deposit mints ~9e36 shares (still an i128)…
    await f.node.invoke(f.vault, "deposit", { depositor: b, amount: 10n ** 18n });
    // …and the one after would need amount * total_shares ≈ 7e55: refused, typed.
    await assert.rejects(
      f.node.invoke(f.vault, "deposit", { depositor: c, amount: 8n * 10n ** 18n }),
      /Error\(Contract, #108\)/,
    );
  });
});

Deno.test("vault: events for init, withdraw, set_config and a slash write-off", async () => {
  await withVigil(async (f) => {
    const { alice, av, keeper, kv } = await seeded(f, 1_000n * USDC);
    const a = alice.publicKey();
    const k = keeper.publicKey();
    const events = async () => {
      const res = await f.server.getEvents({
        startLedger: 1,
        filters: [{ type: "contract", contractIds: [f.vault] }],
        limit: 100,
      });
      return res.events.map((e) => ({
        topics: e.topic.map((t: xdr.ScVal) => scValToNative(t)),
        data: scValToNative(e.value),
      }));
    };
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

    // set_config: the new config.
    const admin = await f.client(f.vault, f.admin);
    const cfg = {
      deposit_cap: 2_000n * USDC,
      withdraw_cooldown: 60n,
      max_draw_per_keeper: 500n * USDC,
    };
    await send(await admin.set_config({ config: cfg }, T));
    assert.deepEqual((await one("set_config")).data, cfg);

    // slash: the registry's book_slash emits [stake received, draw written off, loss].
    await send(await kv.draw({ keeper: k, amount: 400n * USDC }, T));
    await f.advanceTime(3601);
    const e = await f.client(f.registry, await f.user());
    await send(await e.slash({ keeper: k }, T));
    const s = await one("slash");
    assert.deepEqual(s.topics, ["slash", k]);
    assert.deepEqual(s.data, [10n * USDC, 400n * USDC, 390n * USDC]);
  });
});
