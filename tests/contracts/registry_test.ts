/**
 * Keeper registry over JSON-RPC: `contract.Client` with real signatures against the local
 * node. Covers the spec's registry state table row by row, the registry's typed errors,
 * slashing (timeout, oldest-draw clock, write-off in the vault), deregistration, counters,
 * the bounded admin, and events.
 */
import assert from "node:assert/strict";
import { scValToNative, StrKey, type xdr } from "@stellar/stellar-sdk";
import { MAX_KEEPERS, MAX_RESPONSE_TIME_MS } from "../../contracts/registry/mod.ts";
import { U64_MAX } from "../../contracts/vault/math.ts";
import { startTestNode } from "../helpers/localnet.ts";
import { deployVigil } from "../../contracts/deploy.ts";
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
const MIN_STAKE = 100n * USDC;

// deno-lint-ignore no-explicit-any
type Info = Record<string, any>;

/** A funded vault (alice's deposit) and one registered keeper with `keeperUsdc` extra. */
async function seeded(f: VigilFixture, keeperUsdc = 500n * USDC) {
  const alice = await f.user(1_000_000n * USDC);
  const av = await f.client(f.vault, alice);
  await send(await av.deposit({ depositor: alice.publicKey(), amount: 50_000n * USDC }, T));
  const keeper = await f.user(MIN_STAKE + keeperUsdc);
  const kr = await f.client(f.registry, keeper);
  const kv = await f.client(f.vault, keeper);
  await send(await kr.register({ operator: keeper.publicKey(), name: "alpha" }, T));
  return { alice, av, keeper, kr, kv, k: keeper.publicKey() };
}

async function vaultState(f: VigilFixture) {
  return await f.node.view<Record<string, bigint>>(f.vault, "get_state");
}

Deno.test("registry: config and vault wiring as deployed", async () => {
  await withVigil(async (f) => {
    const c = await f.client(f.registry, await f.user());
    assert.deepEqual(ok(await c.get_config(T)), {
      min_stake: MIN_STAKE,
      slash_timeout: 3600n,
      slash_rate_bps: 1000,
      usdc_token: f.usdc,
    });
    assert.equal(ok(await c.get_vault(T)), f.vault);
    assert.deepEqual(ok(await c.get_keepers(T)), []);
  });
});

Deno.test("registry row: unregistered -> register (balance >= min_stake) -> registered, no active draw", async () => {
  await withVigil(async (f) => {
    const op = await f.user(150n * USDC);
    const c = await f.client(f.registry, op);
    const info = await send<Info>(
      await c.register({ operator: op.publicKey(), name: "keeper-1" }, T),
    );
    // Exactly min_stake pulled into the registry.
    assert.equal(await f.balance(op.publicKey()), 50n * USDC);
    assert.equal(await f.balance(f.registry), MIN_STAKE);
    const got = ok<Info>(await c.get_keeper({ operator: op.publicKey() }, T));
    assert.deepEqual(got, info);
    assert.equal(got.operator, op.publicKey());
    assert.equal(got.name, "keeper-1");
    assert.equal(got.stake, MIN_STAKE);
    assert.equal(got.has_active_draw, false);
    assert.equal(got.draw_marked_at, 0n);
    assert.equal(got.total_executions, 0n);
    assert.equal(got.successful_fills, 0n);
    assert.equal(got.total_profit, 0n);
    assert.equal(got.avg_response_time_ms, 0n);
    assert.ok(got.registered_at > 0n);
    assert.deepEqual(ok(await c.get_keepers(T)), [op.publicKey()]);
  });
});

Deno.test("registry row: unregistered -> register with balance below min_stake -> host error, still unregistered", async () => {
  await withVigil(async (f) => {
    const op = await f.user(99n * USDC);
    const c = await f.client(f.registry, op);
    // The token transfer fails inside the contract: Error(Contract, #10) is the SAC's
    // balance error, not one of the registry's typed errors.
    expectHostErr(
      await c.register({ operator: op.publicKey(), name: "poor" }, T),
      /Error\(Contract, #10\)/,
    );
    expectErr(await c.get_keeper({ operator: op.publicKey() }, T), "NotRegistered");
    assert.equal(await f.balance(op.publicKey()), 99n * USDC);
    // Without a trustline at all, it also fails inside the token (#13 TrustlineMissing).
    const bare = await f.node.newAccount();
    const b = await f.client(f.registry, bare);
    expectHostErr(
      await b.register({ operator: bare.publicKey(), name: "bare" }, T),
      /Error\(Contract, #13\)/,
    );
  });
});

Deno.test("registry row: registered -> register again -> AlreadyRegistered", async () => {
  await withVigil(async (f) => {
    const op = await f.user(300n * USDC);
    const c = await f.client(f.registry, op);
    await send(await c.register({ operator: op.publicKey(), name: "a" }, T));
    expectErr(await c.register({ operator: op.publicKey(), name: "a" }, T), "AlreadyRegistered");
    assert.equal(await f.balance(f.registry), MIN_STAKE);
  });
});

Deno.test("registry row: get_keeper on an unregistered address -> NotRegistered", async () => {
  await withVigil(async (f) => {
    const c = await f.client(f.registry, await f.user());
    expectErr(await c.get_keeper({ operator: (await f.user()).publicKey() }, T), "NotRegistered");
  });
});

Deno.test("registry: InvalidName for an empty or over-long name", async () => {
  await withVigil(async (f) => {
    const op = await f.user(300n * USDC);
    const c = await f.client(f.registry, op);
    expectErr(await c.register({ operator: op.publicKey(), name: "" }, T), "InvalidName");
    expectErr(
      await c.register({ operator: op.publicKey(), name: "x".repeat(65) }, T),
      "InvalidName",
    );
    await send(await c.register({ operator: op.publicKey(), name: "x".repeat(64) }, T));
  });
});

Deno.test("registry row: mark_draw (vault only, after a draw > 0) -> active draw, time recorded", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.draw({ keeper: k, amount: 0n }, T));
    assert.equal(
      ok<Info>(await kr.get_keeper({ operator: k }, T)).has_active_draw,
      false,
      "a 0 draw marks nothing",
    );
    await send(await kv.draw({ keeper: k, amount: 10n * USDC }, T));
    const info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.has_active_draw, true);
    const latest = f.node.latestLedger();
    assert.ok(info.draw_marked_at > 0n && info.draw_marked_at <= latest.closeTime);
  });
});

Deno.test("registry: callbacks accept only the stored vault (Unauthorized otherwise)", async () => {
  await withVigil(async (f) => {
    const { k } = await seeded(f);
    const eve = await f.user();
    const e = await f.client(f.registry, eve);
    const me = eve.publicKey();
    expectErr(await e.mark_draw({ caller: me, keeper: k }, T), "Unauthorized");
    expectErr(await e.clear_draw({ caller: me, keeper: k }, T), "Unauthorized");
    expectErr(
      await e.record_execution({
        caller: me,
        keeper: k,
        success: true,
        profit: 1n,
        response_time_ms: 1n,
      }, T),
      "Unauthorized",
    );
    // The registry's own address as caller is no better.
    expectErr(await e.mark_draw({ caller: f.registry, keeper: k }, T), "Unauthorized");
    // Passing the vault's address does not help: the vault did not authorize this call.
    await expectAuthFailure(f, await e.mark_draw({ caller: f.vault, keeper: k }, T), eve, f.vault);
    await expectAuthFailure(f, await e.clear_draw({ caller: f.vault, keeper: k }, T), eve, f.vault);
  });
});

Deno.test("registry row: active draw -> clear_draw via return_proceeds -> no active draw, record_execution follows", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.draw({ keeper: k, amount: 100n * USDC }, T));
    await send(
      await kv.return_proceeds({ keeper: k, amount: 112n * USDC, response_time_ms: 2500n }, T),
    );
    let info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.has_active_draw, false);
    assert.equal(info.draw_marked_at, 0n);
    assert.equal(info.total_executions, 1n);
    assert.equal(info.successful_fills, 1n);
    assert.equal(info.total_profit, 12n * USDC);
    assert.equal(info.avg_response_time_ms, 2500n);
    await send(await kv.draw({ keeper: k, amount: 50n * USDC }, T));
    await send(
      await kv.return_proceeds({ keeper: k, amount: 50n * USDC, response_time_ms: 1000n }, T),
    );
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 2n);
    assert.equal(info.total_profit, 12n * USDC);
    assert.equal(info.total_response_time_ms, 3500n);
    assert.equal(info.response_count, 2n);
    assert.equal(info.avg_response_time_ms, 1750n);
    // An absurd report (u64::MAX) is clamped to a day instead of swamping the average.
    await send(await kv.draw({ keeper: k, amount: 10n * USDC }, T));
    await send(
      await kv.return_proceeds({ keeper: k, amount: 10n * USDC, response_time_ms: U64_MAX }, T),
    );
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.response_count, 3n);
    assert.equal(info.total_response_time_ms, 3500n + MAX_RESPONSE_TIME_MS);
    assert.equal(info.avg_response_time_ms, (3500n + MAX_RESPONSE_TIME_MS) / 3n);
  });
});

Deno.test("registry row: active draw -> slash after more than slash_timeout -> 10% of stake to the vault", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    const eve = await f.user(); // slash is permissionless: a stranger calls it
    const e = await f.client(f.registry, eve);
    expectErr(await e.slash({ keeper: k }, T), "NoActiveDraw");
    await send(await kv.draw({ keeper: k, amount: 1_000n * USDC }, T));
    const marked = ok<Info>(await kr.get_keeper({ operator: k }, T)).draw_marked_at as bigint;
    expectErr(await e.slash({ keeper: k }, T), "SlashTooEarly");
    await f.advanceTime(Number(marked + 3601n - f.node.chain.hostLedger().timestamp));

    const before = await vaultState(f);
    const vaultBal = await f.balance(f.vault);
    const slashed = await send<bigint>(await e.slash({ keeper: k }, T));
    assert.equal(slashed, 10n * USDC);
    // Moved to the vault, not burned.
    assert.equal(await f.balance(f.registry), MIN_STAKE - 10n * USDC);
    assert.equal(await f.balance(f.vault), vaultBal + 10n * USDC);
    const info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.stake, 90n * USDC);
    assert.equal(info.has_active_draw, false); // documented: the draw is written off
    assert.equal(info.slash_count, 1);
    assert.equal(info.total_slashed, 10n * USDC);
    // The vault's books: outstanding draw written off, slashed stake booked.
    const after = await vaultState(f);
    assert.equal(after.active_liq, before.active_liq - 1_000n * USDC);
    assert.equal(after.total_usdc, before.total_usdc - 990n * USDC);
    assert.equal(await f.balance(f.vault), after.total_usdc - after.active_liq);
    assert.equal(ok(await kv.get_keeper_draw({ keeper: k }, T)), 0n);
    assert.equal(ok(await kv.get_total_loss(T)), 990n * USDC);
    // Nothing outstanding any more: no second slash.
    expectErr(await e.slash({ keeper: k }, T), "NoActiveDraw");
    // A slashed keeper (stake below min_stake) cannot draw again.
    expectErr(await kv.draw({ keeper: k, amount: 1n * USDC }, T), "StakeBelowMinimum");
    // It can leave with the remaining stake.
    const bal = await f.balance(k);
    assert.equal(await send(await kr.deregister({ operator: k }, T)), 90n * USDC);
    assert.equal(await f.balance(k), bal + 90n * USDC);
    assert.equal(await f.balance(f.registry), 0n);
  });
});

Deno.test('registry: exactly slash_timeout after the draw is still too early ("more than")', async () => {
  await withVigil(async (f) => {
    const alice = await f.user(1_000n * USDC);
    const av = await f.client(f.vault, alice);
    await send(await av.deposit({ depositor: alice.publicKey(), amount: 500n * USDC }, T));
    const e = await f.client(f.registry, await f.user());
    // Ledger time follows the wall clock: start at the beginning of a wall-clock second and
    // keep the result only if the simulation ran within that second (else retry afresh).
    for (let attempt = 0; attempt < 4; attempt++) {
      const keeper = await f.user(MIN_STAKE);
      const k = keeper.publicKey();
      await send(
        await (await f.client(f.registry, keeper)).register({ operator: k, name: "b" }, T),
      );
      await send(await (await f.client(f.vault, keeper)).draw({ keeper: k, amount: 1n }, T));
      const marked = (await f.node.view<Info>(f.registry, "get_keeper", { operator: k }))
        .draw_marked_at as bigint;
      while (Date.now() % 1000 > 100) await new Promise((r) => setTimeout(r, 5));
      await f.advanceTime(Number(marked + 3600n - f.node.chain.hostLedger().timestamp));
      const t0 = f.node.chain.hostLedger().timestamp;
      const atTimeout = await e.slash({ keeper: k }, T);
      if (f.node.chain.hostLedger().timestamp !== t0 || t0 - marked !== 3600n) continue;
      expectErr(atTimeout, "SlashTooEarly");
      // One second later it is allowed.
      await f.advanceTime(1);
      assert.equal(await send(await e.slash({ keeper: k }, T)), 10n * USDC);
      return;
    }
    throw new Error("could not hit the exact boundary within one wall-clock second");
  });
});

Deno.test("registry: a later draw does not postpone the slash clock (oldest outstanding draw)", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.draw({ keeper: k, amount: 1n }, T));
    const first = ok<Info>(await kr.get_keeper({ operator: k }, T)).draw_marked_at as bigint;
    await f.advanceTime(3000);
    await send(await kv.draw({ keeper: k, amount: 1n }, T)); // the Nectar "1-stroop re-stamp"
    assert.equal(ok<Info>(await kr.get_keeper({ operator: k }, T)).draw_marked_at, first);
    await f.advanceTime(650);
    const e = await f.client(f.registry, await f.user());
    assert.equal(await send(await e.slash({ keeper: k }, T)), 10n * USDC);
  });
});

Deno.test("registry: NotRegistered for slash and deregister of unknown keepers", async () => {
  await withVigil(async (f) => {
    const eve = await f.user();
    const e = await f.client(f.registry, eve);
    expectErr(await e.slash({ keeper: eve.publicKey() }, T), "NotRegistered");
    expectErr(await e.deregister({ operator: eve.publicKey() }, T), "NotRegistered");
  });
});

Deno.test("registry: deregister refused with an active draw; returns the stake after", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.draw({ keeper: k, amount: 5n * USDC }, T));
    expectErr(await kr.deregister({ operator: k }, T), "ActiveDraw");
    await send(await kv.return_proceeds({ keeper: k, amount: 5n * USDC, response_time_ms: 1n }, T));
    const bal = await f.balance(k);
    assert.equal(await send(await kr.deregister({ operator: k }, T)), MIN_STAKE);
    assert.equal(await f.balance(k), bal + MIN_STAKE);
    expectErr(await kr.get_keeper({ operator: k }, T), "NotRegistered");
    assert.deepEqual(ok(await kr.get_keepers(T)), []);
    // Deregistered keepers cannot draw; they may register again.
    expectErr(await kv.draw({ keeper: k, amount: 1n }, T), "NotRegistered");
    await send(await kr.register({ operator: k, name: "again" }, T));
  });
});

Deno.test("registry: admin set_config within bounds; InvalidConfig outside; others refused", async () => {
  await withVigil(async (f) => {
    const a = await f.client(f.registry, f.admin);
    await send(
      await a.set_config({ min_stake: 200n * USDC, slash_timeout: 7200n, slash_rate_bps: 500 }, T),
    );
    assert.deepEqual(ok(await a.get_config(T)), {
      min_stake: 200n * USDC,
      slash_timeout: 7200n,
      slash_rate_bps: 500,
      usdc_token: f.usdc,
    });
    // The change is announced: one set_config event carrying the new config.
    const evs = (await f.server.getEvents({
      startLedger: 1,
      filters: [{ type: "contract", contractIds: [f.registry] }],
      limit: 200,
    })).events.filter((e) => scValToNative(e.topic[0]) === "set_config");
    assert.equal(evs.length, 1);
    assert.deepEqual(scValToNative(evs[0].value), ok(await a.get_config(T)));
    expectErr(
      await a.set_config({ min_stake: 0n, slash_timeout: 7200n, slash_rate_bps: 500 }, T),
      "InvalidConfig",
    );
    expectErr(
      await a.set_config({ min_stake: 1n, slash_timeout: 59n, slash_rate_bps: 500 }, T),
      "InvalidConfig",
    );
    expectErr(
      await a.set_config({ min_stake: 1n, slash_timeout: 60n, slash_rate_bps: 10_001 }, T),
      "InvalidConfig",
    );
    expectErr(
      await a.set_config({ min_stake: 1n, slash_timeout: 60n, slash_rate_bps: 0 }, T),
      "InvalidConfig",
    );
    const eve = await f.user();
    const e = await f.client(f.registry, eve);
    await expectAuthFailure(
      f,
      await e.set_config({ min_stake: 1n, slash_timeout: 60n, slash_rate_bps: 1 }, T),
      eve,
      f.admin.publicKey(),
    );
  });
});

Deno.test("registry: events for register, mark/clear, execution, slash, deregister", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.draw({ keeper: k, amount: 10n * USDC }, T));
    await send(
      await kv.return_proceeds({ keeper: k, amount: 10n * USDC, response_time_ms: 9n }, T),
    );
    await send(await kv.draw({ keeper: k, amount: 10n * USDC }, T));
    await f.advanceTime(3601);
    await send(await kr.slash({ keeper: k }, T));
    await send(await kr.deregister({ operator: k }, T));
    const res = await f.server.getEvents({
      startLedger: 1,
      filters: [{ type: "contract", contractIds: [f.registry] }],
      limit: 200,
    });
    const seen = res.events.map((e) => {
      const topics = e.topic.map((t: xdr.ScVal) => scValToNative(t));
      return { name: String(topics[0]), who: topics[1], data: scValToNative(e.value) };
    });
    const names = seen.map((s) => s.name);
    assert.deepEqual(
      names.filter((n) => n !== "init"),
      ["register", "mark_draw", "clear_draw", "execution", "mark_draw", "slash", "deregister"],
    );
    for (const s of seen.filter((s) => s.name !== "init")) assert.equal(s.who, k);
    const reg = seen.find((s) => s.name === "register")!;
    assert.equal((reg.data as unknown[])[0], "alpha");
    assert.equal((reg.data as unknown[])[1], MIN_STAKE);
    const sl = seen.find((s) => s.name === "slash")!;
    assert.deepEqual(sl.data, [10n * USDC, 90n * USDC, 10n * USDC]);
  });
});

Deno.test("registry: RegistryFull at MAX_KEEPERS (in-process, contract-address operators)", async () => {
  const node = await startTestNode();
  try {
    const issuer = await node.newAccount();
    const { Asset } = await import("@stellar/stellar-sdk");
    const usdc = await node.deployAsset(new Asset("USDC", issuer.publicKey()));
    const { registry } = await deployVigil(node, { usdc, config: { min_stake: 1n } });
    const op = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
    for (let i = 0; i < MAX_KEEPERS; i++) {
      const a = op();
      await node.invoke(usdc, "mint", { to: a, amount: 1n }, { source: issuer.publicKey() });
      await node.invoke(registry, "register", { operator: a, name: `k${i}` });
    }
    const last = op();
    await node.invoke(usdc, "mint", { to: last, amount: 1n }, { source: issuer.publicKey() });
    await assert.rejects(
      node.invoke(registry, "register", { operator: last, name: "one-too-many" }),
      /Error\(Contract, #125\)/,
    );
    assert.equal((await node.view<string[]>(registry, "get_keepers")).length, MAX_KEEPERS);
  } finally {
    await node.close();
  }
});
