/**
 * Keeper registry over JSON-RPC: `contract.Client` with real signatures against the local
 * node. Covers the registry table (contracts/README.md, issue 12: no slash, no draw timer) row
 * by row, the registry's typed errors, deregistration at any time, counters fed by settled
 * flashes (response time clamped to 1 h), the bounded admin, and events.
 */
import assert from "node:assert/strict";
import { scValToNative, StrKey, type xdr } from "@stellar/stellar-sdk";
import { MAX_KEEPERS } from "../../contracts/registry/spec.ts";
import { startTestNode } from "../helpers/localnet.ts";
import { deployVigil } from "../../contracts/deploy.ts";
import {
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

Deno.test("registry: config and vault wiring as deployed", async () => {
  await withVigil(async (f) => {
    const c = await f.client(f.registry, await f.user());
    assert.deepEqual(ok(await c.get_config(T)), { min_stake: MIN_STAKE, usdc_token: f.usdc });
    assert.equal(ok(await c.get_vault(T)), f.vault);
    assert.deepEqual(ok(await c.get_keepers(T)), []);
  });
});

Deno.test("registry row: unregistered -> register (balance >= min_stake) -> registered", async () => {
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
    for (const gone of ["has_active_draw", "draw_marked_at", "slash_count", "total_slashed"]) {
      assert.ok(!(gone in got), `${gone} was removed by issue 12`);
    }
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

Deno.test("registry: record_execution accepts only the stored vault (Unauthorized, then auth)", async () => {
  await withVigil(async (f) => {
    const { k } = await seeded(f);
    const eve = await f.user();
    const e = await f.client(f.registry, eve);
    const args = (caller: string) => ({
      caller,
      keeper: k,
      success: true,
      profit: 1n,
      response_time_ms: 1n,
    });
    expectErr(await e.record_execution(args(eve.publicKey()), T), "Unauthorized");
    // The registry's own address as caller is no better.
    expectErr(await e.record_execution(args(f.registry), T), "Unauthorized");
    // Passing the vault's address does not help: the vault did not authorize this call.
    await expectAuthFailure(f, await e.record_execution(args(f.vault), T), eve, f.vault);
    const info = ok<Info>(await e.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 0n);
  });
});

Deno.test("registry row: settled flash -> record_execution -> counters and average", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(
      await kv.flash(
        flashArgs(f, k, 100n * USDC, [{ op: "pay", to: f.vault, amount: 112n * USDC }], 2500n),
        T,
      ),
    );
    let info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 1n);
    assert.equal(info.successful_fills, 1n);
    assert.equal(info.total_profit, 12n * USDC);
    assert.equal(info.avg_response_time_ms, 2500n);
    await send(await kv.flash(flashArgs(f, k, 50n * USDC, [{ op: "repay_all" }], 1000n), T));
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 2n);
    assert.equal(info.total_profit, 12n * USDC);
    assert.equal(info.total_response_time_ms, 3500n);
    assert.equal(info.response_count, 2n);
    assert.equal(info.avg_response_time_ms, 1750n);
    // A reverted flash (not repaid) records nothing: counters count only settled fills.
    expectErr(await kv.flash(flashArgs(f, k, 50n * USDC, [], 1n), T), "FlashNotRepaid");
    assert.deepEqual(ok<Info>(await kr.get_keeper({ operator: k }, T)), info);
  });
});

Deno.test("registry: response_time_ms is clamped to 1 h before it enters the average", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    const U64_MAX = (1n << 64n) - 1n;
    await send(await kv.flash(flashArgs(f, k, 1n * USDC, [{ op: "repay_all" }], U64_MAX), T));
    let info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_response_time_ms, 3_600_000n);
    assert.equal(info.avg_response_time_ms, 3_600_000n);
    await send(await kv.flash(flashArgs(f, k, 1n * USDC, [{ op: "repay_all" }], 3_600_001n), T));
    await send(await kv.flash(flashArgs(f, k, 1n * USDC, [{ op: "repay_all" }], 300n), T));
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_response_time_ms, 7_200_300n);
    assert.equal(info.avg_response_time_ms, 2_400_100n);
    // The execution event carries the clamped value.
    const evs = (await f.server.getEvents({
      startLedger: 1,
      filters: [{ type: "contract", contractIds: [f.registry] }],
      limit: 200,
    })).events.filter((e) => scValToNative(e.topic[0]) === "execution");
    assert.deepEqual(
      evs.map((e) => (scValToNative(e.value) as bigint[])[2]),
      [3_600_000n, 3_600_000n, 300n],
    );
  });
});

Deno.test("registry: NotRegistered for deregister and record_execution of unknown keepers; slash is gone", async () => {
  await withVigil(async (f) => {
    const eve = await f.user();
    const e = await f.client(f.registry, eve);
    expectErr(await e.deregister({ operator: eve.publicKey() }, T), "NotRegistered");
    await assert.rejects(
      f.node.invoke(f.registry, "record_execution", {
        caller: f.vault,
        keeper: eve.publicKey(),
        success: true,
        profit: 0n,
        response_time_ms: 0n,
      }),
      /Error\(Contract, #104\)/,
    );
    for (const gone of ["slash", "mark_draw", "clear_draw"]) {
      assert.ok(typeof (e as Info)[gone] !== "function", `${gone} was removed by issue 12`);
    }
  });
});

Deno.test("registry: deregister any time (right after a flash); returns the whole stake", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.flash(flashArgs(f, k, 5n * USDC, [{ op: "repay_all" }]), T));
    const bal = await f.balance(k);
    assert.equal(await send(await kr.deregister({ operator: k }, T)), MIN_STAKE);
    assert.equal(await f.balance(k), bal + MIN_STAKE);
    expectErr(await kr.get_keeper({ operator: k }, T), "NotRegistered");
    assert.deepEqual(ok(await kr.get_keepers(T)), []);
    // Deregistered keepers cannot flash; they may register again (fresh counters).
    expectErr(await kv.flash(flashArgs(f, k, 1n, [{ op: "repay_all" }]), T), "NotRegistered");
    await send(await kr.register({ operator: k, name: "again" }, T));
    assert.equal(ok<Info>(await kr.get_keeper({ operator: k }, T)).total_executions, 0n);
  });
});

Deno.test("registry: admin set_config within bounds; InvalidConfig outside; others refused", async () => {
  await withVigil(async (f) => {
    const a = await f.client(f.registry, f.admin);
    await send(await a.set_config({ min_stake: 200n * USDC }, T));
    assert.deepEqual(ok(await a.get_config(T)), { min_stake: 200n * USDC, usdc_token: f.usdc });
    // The change is announced: one set_config event carrying the new config.
    const evs = (await f.server.getEvents({
      startLedger: 1,
      filters: [{ type: "contract", contractIds: [f.registry] }],
      limit: 200,
    })).events.filter((e) => scValToNative(e.topic[0]) === "set_config");
    assert.equal(evs.length, 1);
    assert.deepEqual(scValToNative(evs[0].value), ok(await a.get_config(T)));
    expectErr(await a.set_config({ min_stake: 0n }, T), "InvalidConfig");
    expectErr(await a.set_config({ min_stake: 1n << 63n }, T), "InvalidConfig");
    await send(await a.set_config({ min_stake: (1n << 63n) - 1n }, T));
    const eve = await f.user();
    const e = await f.client(f.registry, eve);
    await expectAuthFailure(f, await e.set_config({ min_stake: 1n }, T), eve, f.admin.publicKey());
  });
});

Deno.test("registry: events for register, execution, deregister", async () => {
  await withVigil(async (f) => {
    const { kr, kv, k } = await seeded(f);
    await send(await kv.flash(flashArgs(f, k, 10n * USDC, [{ op: "repay_all" }], 9n), T));
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
    assert.deepEqual(names.filter((n) => n !== "init"), ["register", "execution", "deregister"]);
    for (const s of seen.filter((s) => s.name !== "init")) assert.equal(s.who, k);
    const reg = seen.find((s) => s.name === "register")!;
    assert.equal((reg.data as unknown[])[0], "alpha");
    assert.equal((reg.data as unknown[])[1], MIN_STAKE);
    assert.deepEqual(seen.find((s) => s.name === "execution")!.data, [true, 0n, 9n, 1n]);
    assert.deepEqual(seen.find((s) => s.name === "deregister")!.data, [MIN_STAKE]);
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
