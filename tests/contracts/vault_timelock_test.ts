/**
 * Issue 20's admin limits over JSON-RPC with real signatures: queued flash-policy and config
 * changes (queue, replace, in force exactly at `applies_at`, cancel), restricting changes and
 * brakes applied at once (dropping a queued change), the configuration bounds, and the two-step
 * admin hand-over and renunciation of the vault and the registry.
 *
 * Reads simulate at the next ledger's time (latest close + 1 s), and a transaction sent after
 * `advanceTo(t - 1)` lands at `t`: the fixture moved ledger time ahead of the wall clock, so each
 * ledger closes exactly one second after the previous one.
 */
import assert from "node:assert/strict";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { createWasmContract } from "@vigil/contracts/deploy/net";
import type {
  FlashPolicy,
  PendingConfig,
  PendingFlashPolicy,
  VaultConfig,
} from "@vigil/contracts/clients";
import {
  contractEvents,
  expectAuthFailure,
  expectErr,
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
const DAY = 86_400n;
const I64 = (1n << 63n) - 1n;

const randomContract = () =>
  StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);

/** Admin and reader clients of the vault, and the views a test compares. */
async function views(f: VigilFixture) {
  const admin = await f.client(f.vault, f.admin);
  return {
    admin,
    policy: async () => ok<FlashPolicy>(await admin.get_flash_policy(T)),
    pendingPolicy: async () =>
      (ok<PendingFlashPolicy | undefined>(await admin.get_pending_flash_policy(T))) ?? null,
    config: async () => ok<VaultConfig>(await admin.get_config(T)),
    pendingConfig: async () =>
      (ok<PendingConfig | undefined>(await admin.get_pending_config(T))) ?? null,
  };
}

/** A registered keeper with USDC, and alice's deposit, for flashes through the executors. */
async function keeperOf(f: VigilFixture) {
  const alice = await f.user(1_000n * USDC);
  await send(
    await (await f.client(f.vault, alice)).deposit({
      depositor: alice.publicKey(),
      amount: 1_000n * USDC,
    }, T),
  );
  const kp = await f.user(200n * USDC);
  await send(
    await (await f.client(f.registry, kp)).register({ operator: kp.publicKey(), name: "k" }, T),
  );
  return { kp, kv: await f.client(f.vault, kp) };
}

Deno.test("flash policy: a widening change is queued for policy_delay, replaced by a later one, in force from applies_at exactly; cancel_pending drops it", async () => {
  await withVigil(async (f) => {
    const v = await views(f);
    const delay = (await v.config()).policy_delay;
    assert.equal(delay, 7_200n, "the fixture's delay: withdraw_cooldown + 3600");
    const p0 = await v.policy();
    const { kp, kv } = await keeperOf(f);
    const k = kp.publicKey();
    const rogue = await deployFixture(f.node, "scripted_executor");
    const viaRogue = () =>
      kv.flash({ ...flashArgs(f, k, 1n * USDC, [{ op: "repay_all" }]), executor: rogue }, T);

    // Queue p1 (a pool more): the policy in force does not change.
    const p1 = { ...p0, pools: [randomContract()] };
    await send(await v.admin.set_flash_policy({ policy: p1 }, T));
    const t1 = f.now();
    assert.deepEqual(await v.pendingPolicy(), { applies_at: t1 + delay, policy: p1 });
    assert.deepEqual(await v.policy(), p0);
    // A later change replaces it, with its own applies_at (the delay counts from the new one).
    await f.advanceTime(100);
    const p2 = { ...p0, executors: [...p0.executors, rogue], tokens: [randomContract()] };
    await send(await v.admin.set_flash_policy({ policy: p2 }, T));
    const t2 = f.now();
    const at = t2 + delay;
    assert.deepEqual(await v.pendingPolicy(), { applies_at: at, policy: p2 });
    const queued = (await contractEvents(f.server, f.vault)).filter((e) =>
      e.topics[0] === "policy_queued"
    );
    assert.deepEqual(queued.slice(-2).map((e) => e.data), [[p1, t1 + delay], [p2, at]]);

    // One second before applies_at (the next ledger's time): not yet — p1 never applies, p2
    // not yet, and a flash through p2's executor is refused.
    await f.advanceTo(at - 2n);
    assert.deepEqual(await v.policy(), p0);
    assert.deepEqual((await v.pendingPolicy())?.policy, p2);
    expectErr(await viaRogue(), "ExecutorNotAllowed");
    // From applies_at on it is in force (read lazily: no transaction needed) and the flash
    // through the newly listed executor settles in the ledger at applies_at.
    await f.advanceTime(1);
    assert.deepEqual(await v.policy(), p2);
    assert.equal(await v.pendingPolicy(), null, "nothing waits any more");
    await send(await viaRogue());
    assert.equal(f.now(), at);

    // cancel_pending: a queued p3 is dropped; after its applies_at p2 is still in force.
    const p3 = { ...p2, max_slippage_bps: 1_000 };
    await send(await v.admin.set_flash_policy({ policy: p3 }, T));
    const at3 = f.now() + delay;
    await send(await v.admin.cancel_pending(T));
    assert.equal(await v.pendingPolicy(), null);
    const evs = await contractEvents(f.server, f.vault);
    assert.deepEqual(evs.at(-1)!.topics, ["pending_cancelled"]);
    await f.advanceTo(at3 + 10n);
    assert.deepEqual(await v.policy(), p2, "the cancelled change never applies");
    // Nothing left to cancel; and a queued change that already applied cannot be cancelled.
    expectErr(await v.admin.cancel_pending(T), "NothingPending");
    await send(await v.admin.set_flash_policy({ policy: p3 }, T));
    await f.advanceTime(Number(delay));
    expectErr(await v.admin.cancel_pending(T), "NothingPending");
    assert.deepEqual(await v.policy(), p3);
    // Only the admin cancels.
    const p4 = { ...p3, pools: [randomContract()] };
    await send(await v.admin.set_flash_policy({ policy: p4 }, T));
    const eve = await f.user();
    await expectAuthFailure(
      f,
      await (await f.client(f.vault, eve)).cancel_pending(T),
      eve,
      f.admin.publicKey(),
    );
    assert.deepEqual((await v.pendingPolicy())?.policy, p4, "eve's cancel changed nothing");
  });
});

Deno.test("flash policy: a change that only restricts applies at once and drops the queued one; restricting is judged against the policy in force", async () => {
  await withVigil(async (f) => {
    const v = await views(f);
    const delay = (await v.config()).policy_delay;
    const p0 = await v.policy(); // [liquidator, executor], 300 bps, no pools/routers/tokens
    const [pool, router, token] = [randomContract(), randomContract(), randomContract()];
    // Queue a wider policy, then restrict: the restriction is in force now, the queued change
    // is gone (a `set_flash_policy` event, no `policy_queued`).
    await send(await v.admin.set_flash_policy({ policy: { ...p0, pools: [pool] } }, T));
    assert.notEqual(await v.pendingPolicy(), null);
    const narrow = { ...p0, executors: [p0.executors[0]], max_slippage_bps: 100 };
    await send(await v.admin.set_flash_policy({ policy: narrow }, T));
    assert.deepEqual(await v.policy(), narrow);
    assert.equal(await v.pendingPolicy(), null, "the queued widening is dropped");
    const last = (await contractEvents(f.server, f.vault)).at(-1)!;
    assert.deepEqual(last, { ...last, topics: ["set_flash_policy"], data: narrow });
    // The same policy again is "only restricting" (every list a subset, bps not higher).
    await send(await v.admin.set_flash_policy({ policy: narrow }, T));
    assert.equal(await v.pendingPolicy(), null);
    // Lower bps but one more entry in any list: queued (each of the five lists).
    for (
      const wider of [
        { ...narrow, max_slippage_bps: 101 },
        { ...narrow, executors: [...narrow.executors, p0.executors[1]] },
        { ...narrow, pools: [pool] },
        { ...narrow, routers: [router] },
        { ...narrow, max_slippage_bps: 0, tokens: [token] },
      ]
    ) {
      await send(await v.admin.set_flash_policy({ policy: wider }, T));
      assert.deepEqual((await v.pendingPolicy())?.policy, wider, JSON.stringify(wider));
      assert.deepEqual(await v.policy(), narrow);
    }
    // Restricting is relative to what is in force: once the queued policy applied, removing one
    // of ITS entries is instant (the due change is settled first).
    const wide = { ...narrow, pools: [pool], routers: [router], tokens: [token] };
    await send(await v.admin.set_flash_policy({ policy: wide }, T));
    await f.advanceTime(Number(delay));
    assert.deepEqual(await v.policy(), wide);
    const less = { ...wide, routers: [] };
    await send(await v.admin.set_flash_policy({ policy: less }, T));
    assert.deepEqual(await v.policy(), less);
    assert.equal(await v.pendingPolicy(), null);
  });
});

Deno.test("config: changes other than the brakes are queued (replace, apply at applies_at, cancel); a brake applies at once and drops the queued config; lowering policy_delay is queued too", async () => {
  await withVigil(async (f) => {
    const v = await views(f);
    const c0 = await v.config();
    const delay = c0.policy_delay;
    // Each non-brake field, and a higher cap or draw limit: queued, the config in force unchanged.
    for (
      const c of [
        { ...c0, min_fill_profit: 0n },
        { ...c0, profit_unlock_secs: 600n },
        { ...c0, withdraw_cooldown: 60n },
        { ...c0, policy_delay: 30n * DAY },
        { ...c0, deposit_cap: c0.deposit_cap + 1n },
        { ...c0, max_draw_per_keeper: c0.max_draw_per_keeper + 1n },
        // a brake together with another change is not a brake
        { ...c0, deposit_cap: 1n, min_fill_profit: 2n * USDC },
      ]
    ) {
      await send(await v.admin.set_config({ config: c }, T));
      assert.deepEqual(await v.pendingConfig(), { applies_at: f.now() + delay, config: c });
      assert.deepEqual(await v.config(), c0);
    }
    // The last one replaced all earlier ones. It applies at applies_at, not a second before.
    const c1 = { ...c0, min_fill_profit: 0n, profit_unlock_secs: 600n };
    await send(await v.admin.set_config({ config: c1 }, T));
    const at = f.now() + delay;
    await f.advanceTo(at - 2n);
    assert.deepEqual(await v.config(), c0);
    await f.advanceTime(1);
    assert.deepEqual(await v.config(), c1);
    assert.equal(await v.pendingConfig(), null);
    // A brake (lower cap and draw limit, all else equal) applies at once and drops the queue.
    await send(await v.admin.set_config({ config: { ...c1, withdraw_cooldown: 60n } }, T));
    assert.notEqual(await v.pendingConfig(), null);
    const brake = { ...c1, deposit_cap: 5_000n * USDC, max_draw_per_keeper: 10n * USDC };
    await send(await v.admin.set_config({ config: brake }, T));
    assert.deepEqual(await v.config(), brake);
    assert.equal(await v.pendingConfig(), null);
    const evs = await contractEvents(f.server, f.vault);
    assert.deepEqual(evs.at(-1)!.topics, ["set_config"]);
    assert.deepEqual(evs.at(-1)!.data, brake);
    // The admin cannot shorten the delay at once: a lower policy_delay is itself queued for the
    // current delay, and it must still cover the cooldown in force (shares minted under it must
    // be able to leave before the change after it), so cooldown and delay come down in two steps.
    const shorter = { ...brake, withdraw_cooldown: 0n, policy_delay: 3_600n };
    expectErr(await v.admin.set_config({ config: shorter }, T), "InvalidConfig");
    const noCooldown = { ...brake, withdraw_cooldown: 0n };
    await send(await v.admin.set_config({ config: noCooldown }, T));
    const cfgAt = f.now() + delay;
    assert.deepEqual(await v.pendingConfig(), { applies_at: cfgAt, config: noCooldown });
    assert.equal((await v.config()).policy_delay, delay);
    const p = await v.policy();
    await send(
      await v.admin.set_flash_policy({ policy: { ...p, pools: [randomContract()] } }, T),
    );
    assert.equal((await v.pendingPolicy())?.applies_at, f.now() + delay);
    // cancel_pending drops both queued changes at once.
    await send(await v.admin.cancel_pending(T));
    assert.equal(await v.pendingConfig(), null);
    assert.equal(await v.pendingPolicy(), null);
    await f.advanceTo(cfgAt + 1n);
    assert.deepEqual(await v.config(), brake);
    // Cooldown first, then the delay: once the shorter delay applied, later changes wait only it.
    await send(await v.admin.set_config({ config: noCooldown }, T));
    await f.advanceTime(Number(delay));
    assert.deepEqual(await v.config(), noCooldown);
    await send(await v.admin.set_config({ config: shorter }, T));
    await f.advanceTime(Number(delay));
    assert.deepEqual(await v.config(), shorter);
    await send(await v.admin.set_config({ config: { ...shorter, min_fill_profit: 3n } }, T));
    assert.equal((await v.pendingConfig())?.applies_at, f.now() + 3_600n);
  });
});

Deno.test("config bounds: InvalidConfig for deposit_cap < 1, max_draw < 0, min_fill_profit outside [0, i64::MAX], withdraw_cooldown > 7 d, profit_unlock_secs > 30 d, policy_delay < cooldown + 1 h or > 30 d (set_config and the constructor)", async () => {
  await withVigil(async (f) => {
    const v = await views(f);
    const c0 = await v.config();
    const bad: [string, VaultConfig][] = [
      ["deposit_cap 0", { ...c0, deposit_cap: 0n }],
      ["max_draw -1", { ...c0, max_draw_per_keeper: -1n }],
      ["min_fill_profit -1", { ...c0, min_fill_profit: -1n }],
      ["min_fill_profit > i64", { ...c0, min_fill_profit: I64 + 1n }],
      ["cooldown 7 d + 1", { ...c0, withdraw_cooldown: 7n * DAY + 1n, policy_delay: 8n * DAY }],
      ["unlock 30 d + 1", { ...c0, profit_unlock_secs: 30n * DAY + 1n }],
      ["delay < cooldown + 3600", { ...c0, policy_delay: c0.withdraw_cooldown + 3_599n }],
      ["delay > 30 d", { ...c0, policy_delay: 30n * DAY + 1n }],
      ["cooldown raised past delay - 3600", { ...c0, withdraw_cooldown: c0.policy_delay }],
    ];
    for (const [what, c] of bad) {
      const tx = await v.admin.set_config({ config: c }, T);
      assert.ok(tx.simulation && "error" in tx.simulation, `${what} must fail`);
      expectErr(tx, "InvalidConfig");
    }
    assert.equal(await v.pendingConfig(), null, "nothing was queued");
    // A shorter cooldown does not buy a shorter delay at once: shares minted under the cooldown
    // in force must still be able to leave before the change after it applies.
    if (c0.withdraw_cooldown > 0n) {
      const tx = await v.admin.set_config({
        config: { ...c0, withdraw_cooldown: 0n, policy_delay: c0.withdraw_cooldown + 3_599n },
      }, T);
      expectErr(tx, "InvalidConfig");
    }
    // The edges are valid (queued; the first brake-only one — the delay it already has — at
    // once).
    for (
      const c of [
        { ...c0, min_fill_profit: 0n },
        { ...c0, min_fill_profit: I64 },
        { ...c0, profit_unlock_secs: 0n },
        { ...c0, profit_unlock_secs: 30n * DAY },
        { ...c0, policy_delay: c0.withdraw_cooldown + 3_600n },
        { ...c0, policy_delay: 30n * DAY },
        { ...c0, withdraw_cooldown: 7n * DAY, policy_delay: 7n * DAY + 3_600n },
      ]
    ) {
      await send(await v.admin.set_config({ config: c }, T));
      const pending = (await v.pendingConfig())?.config;
      assert.deepEqual(pending ?? await v.config(), c);
    }
    // The constructor checks the same bounds: a vault whose delay does not exceed its cooldown by
    // an hour is never created.
    const deployer = Keypair.random();
    await f.node.fund(deployer.publicKey());
    await assert.rejects(
      createWasmContract({
        rpcUrl: f.node.rpcUrl,
        secret: deployer.secret(),
        name: "vault",
        args: {
          admin: f.admin.publicKey(),
          usdc: f.usdc,
          config: { ...c0, withdraw_cooldown: 3_600n, policy_delay: 7_199n },
          registry: null,
          policy: { executors: [], max_slippage_bps: 0, pools: [], routers: [], tokens: [] },
        },
      }),
      /#107|InvalidConfig|failed/,
    );
  });
});

/** The admin functions of one contract, for the hand-over test run on both. */
interface AdminSurface {
  name: string;
  id: (f: VigilFixture) => string;
  /** An admin-only call that succeeds for the admin (and changes nothing that matters here). */
  // deno-lint-ignore no-explicit-any
  adminCall: (c: any, f: VigilFixture) => Promise<any>;
  /** Every admin-only function, for the Unauthorized check after renounce. */
  // deno-lint-ignore no-explicit-any
  allAdminCalls: (c: any, f: VigilFixture) => Promise<any>[];
}

const VAULT: AdminSurface = {
  name: "vault",
  id: (f) => f.vault,
  adminCall: async (c) => c.set_config({ config: ok(await c.get_config(T)) }, T),
  allAdminCalls: (c, f) => [
    (async () => c.set_config({ config: ok(await c.get_config(T)) }, T))(),
    (async () => c.set_flash_policy({ policy: ok(await c.get_flash_policy(T)) }, T))(),
    c.cancel_pending(T),
    c.propose_admin({ new_admin: f.admin.publicKey() }, T),
    c.renounce_admin(T),
    c.set_registry({ registry: f.registry }, T),
  ],
};

const REGISTRY: AdminSurface = {
  name: "registry",
  id: (f) => f.registry,
  adminCall: (c) => c.set_config({ min_stake: 100n * USDC }, T),
  allAdminCalls: (c, f) => [
    c.set_config({ min_stake: 100n * USDC }, T),
    c.propose_admin({ new_admin: f.admin.publicKey() }, T),
    c.renounce_admin(T),
  ],
};

for (const s of [VAULT, REGISTRY]) {
  Deno.test(`${s.name} admin: propose/accept hand-over (wrong signer fails, NothingPending without a proposal), renounce (every admin function Unauthorized after it); events`, async () => {
    await withVigil(async (f) => {
      const id = s.id(f);
      const [bob, carol, eve] = [await f.user(), await f.user(), await f.user()];
      const as = (kp: Keypair) => f.client(id, kp);
      const admin = await as(f.admin);
      assert.equal(ok(await admin.get_admin(T)), f.admin.publicKey());
      assert.equal(ok(await admin.get_pending_admin(T)) ?? null, null);
      // Nothing proposed: accept fails NothingPending, whoever calls.
      expectErr(await (await as(bob)).accept_admin(T), "NothingPending");
      // Only the admin proposes.
      await expectAuthFailure(
        f,
        await (await as(eve)).propose_admin({ new_admin: eve.publicKey() }, T),
        eve,
        f.admin.publicKey(),
      );
      await send(await admin.propose_admin({ new_admin: bob.publicKey() }, T));
      assert.equal(ok(await admin.get_pending_admin(T)), bob.publicKey());
      // Only the proposed address accepts: eve cannot present bob's authorization.
      await expectAuthFailure(f, await (await as(eve)).accept_admin(T), eve, bob.publicKey());
      // A new proposal replaces the old one: bob can no longer accept.
      await send(await admin.propose_admin({ new_admin: carol.publicKey() }, T));
      assert.equal(ok(await admin.get_pending_admin(T)), carol.publicKey());
      await expectAuthFailure(f, await (await as(bob)).accept_admin(T), bob, carol.publicKey());
      // The admin stays in charge until the hand-over completes.
      await send(await s.adminCall(admin, f));
      await send(await (await as(carol)).accept_admin(T));
      const c = await as(carol);
      assert.equal(ok(await c.get_admin(T)), carol.publicKey());
      assert.equal(ok(await c.get_pending_admin(T)) ?? null, null);
      // The old admin is out: its call now needs carol's signature.
      await expectAuthFailure(f, await s.adminCall(admin, f), f.admin, carol.publicKey());
      await send(await s.adminCall(c, f));
      // Renounce: the pending proposal goes too; no admin from now on.
      await send(await c.propose_admin({ new_admin: bob.publicKey() }, T));
      await send(await c.renounce_admin(T));
      assert.equal(ok(await c.get_admin(T)) ?? null, null);
      assert.equal(ok(await c.get_pending_admin(T)) ?? null, null);
      expectErr(await (await as(bob)).accept_admin(T), "NothingPending");
      for (const who of [carol, f.admin, eve]) {
        for (const call of s.allAdminCalls(await as(who), f)) expectErr(await call, "Unauthorized");
      }
      const names = (await contractEvents(f.server, id)).map((e) => e.topics[0]);
      const adminEvents = names.filter((n) => String(n).startsWith("admin_"));
      assert.deepEqual(adminEvents, [
        "admin_proposed",
        "admin_proposed",
        "admin_accepted",
        "admin_proposed",
        "admin_renounced",
      ]);
      const evs = (await contractEvents(f.server, id)).filter((e) =>
        String(e.topics[0]).startsWith("admin_")
      );
      assert.deepEqual(evs[0].data, [f.admin.publicKey(), bob.publicKey()]);
      assert.equal(evs[2].data, carol.publicKey());
      assert.equal(evs[4].data, carol.publicKey());
    });
  });
}
