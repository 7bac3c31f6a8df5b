/**
 * Keeper registry over JSON-RPC: `contract.Client` with real signatures against the local
 * node. Covers the registry table (contracts/README.md, issue 12: no slash, no draw timer) row
 * by row, the registry's typed errors, deregistration at any time, counters fed by settled
 * flashes (response time clamped to 1 h), the bounded admin, and events.
 */
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import { MAX_KEEPERS_PAGE } from "./spec.ts";
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
    assert.deepEqual(ok(await c.get_keepers({ start: 0, limit: 100 }, T)), []);
    assert.equal(ok(await c.get_keeper_count(T)), 0);
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
    assert.deepEqual(ok(await c.get_keepers({ start: 0, limit: 10 }, T)), [op.publicKey()]);
    assert.equal(ok(await c.get_keeper_count(T)), 1);
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

Deno.test("registry row: settled flash -> record_execution -> counters and average (a fill only at >= min_fill_profit)", async () => {
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
    // Exactly the vault's min_fill_profit (1 USDC): a fill.
    await send(
      await kv.flash(
        flashArgs(f, k, 50n * USDC, [{ op: "pay", to: f.vault, amount: 51n * USDC }], 1000n),
        T,
      ),
    );
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 2n);
    assert.equal(info.successful_fills, 2n);
    assert.equal(info.total_profit, 13n * USDC);
    assert.equal(info.total_response_time_ms, 3500n);
    assert.equal(info.response_count, 2n);
    assert.equal(info.avg_response_time_ms, 1750n);
    // One unit below it: the profit is booked, the execution counted, but no fill and no
    // response-time sample (a dust flash cannot lift the leaderboard).
    await send(
      await kv.flash(
        flashArgs(f, k, 50n * USDC, [{ op: "pay", to: f.vault, amount: 51n * USDC - 1n }], 1n),
        T,
      ),
    );
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_executions, 3n);
    assert.equal(info.successful_fills, 2n);
    assert.equal(info.total_profit, 14n * USDC - 1n);
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
    // Each flash books exactly min_fill_profit (1 USDC): a fill, so its response time counts.
    const fill = [{ op: "pay" as const, to: f.vault, amount: 2n * USDC }];
    await send(await kv.flash(flashArgs(f, k, 1n * USDC, fill, U64_MAX), T));
    let info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_response_time_ms, 3_600_000n);
    assert.equal(info.avg_response_time_ms, 3_600_000n);
    await send(await kv.flash(flashArgs(f, k, 1n * USDC, fill, 3_600_001n), T));
    await send(await kv.flash(flashArgs(f, k, 1n * USDC, fill, 300n), T));
    info = ok<Info>(await kr.get_keeper({ operator: k }, T));
    assert.equal(info.total_response_time_ms, 7_200_300n);
    assert.equal(info.avg_response_time_ms, 2_400_100n);
    // The execution event carries the clamped value.
    const evs = (await contractEvents(f.server, f.registry)).filter((e) =>
      e.topics[0] === "execution"
    );
    assert.deepEqual(evs.map((e) => (e.data as bigint[])[2]), [3_600_000n, 3_600_000n, 300n]);
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
    assert.deepEqual(ok(await kr.get_keepers({ start: 0, limit: 100 }, T)), []);
    assert.equal(ok(await kr.get_keeper_count(T)), 0);
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
    const evs = (await contractEvents(f.server, f.registry)).filter((e) =>
      e.topics[0] === "set_config"
    );
    assert.equal(evs.length, 1);
    assert.deepEqual(evs[0].data, ok(await a.get_config(T)));
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
    const seen = (await contractEvents(f.server, f.registry)).map((e) => ({
      name: String(e.topics[0]),
      who: e.topics[1],
      data: e.data,
    }));
    const names = seen.map((s) => s.name);
    assert.deepEqual(names.filter((n) => n !== "init"), ["register", "execution", "deregister"]);
    for (const s of seen.filter((s) => s.name !== "init")) assert.equal(s.who, k);
    const reg = seen.find((s) => s.name === "register")!;
    assert.equal((reg.data as unknown[])[0], "alpha");
    assert.equal((reg.data as unknown[])[1], MIN_STAKE);
    // [success, profit, response time, executions]: profit 0 is below min_fill_profit.
    assert.deepEqual(seen.find((s) => s.name === "execution")!.data, [false, 0n, 9n, 1n]);
    assert.deepEqual(seen.find((s) => s.name === "deregister")!.data, [MIN_STAKE]);
  });
});

Deno.test("registry: get_keepers pages in list order; deregister swap-removes (the last keeper takes the freed index); get_keeper_count", async () => {
  await withVigil(async (f) => {
    const ops = [];
    for (let i = 0; i < 4; i++) {
      const kp = await f.user(MIN_STAKE);
      await send(
        await (await f.client(f.registry, kp)).register({
          operator: kp.publicKey(),
          name: `k${i}`,
        }, T),
      );
      ops.push(kp);
    }
    const [a, b, c, d] = ops.map((kp) => kp.publicKey());
    const r = await f.client(f.registry, ops[0]);
    const page = async (start: number, limit: number) =>
      ok<string[]>(await r.get_keepers({ start, limit }, T));
    assert.deepEqual(await page(0, 100), [a, b, c, d], "registration order");
    assert.deepEqual(await page(1, 2), [b, c]);
    assert.deepEqual(await page(3, 100), [d]);
    assert.deepEqual(await page(4, 100), [], "past the end");
    assert.deepEqual(await page(0, 0), []);
    assert.equal(ok(await r.get_keeper_count(T)), 4);
    // Deregistering b (index 1): d, the last, moves into index 1.
    await send(await (await f.client(f.registry, ops[1])).deregister({ operator: b }, T));
    assert.deepEqual(await page(0, 100), [a, d, c]);
    assert.deepEqual(await page(1, 1), [d]);
    assert.equal(ok(await r.get_keeper_count(T)), 3);
    // The last one leaves: nothing moves.
    await send(await (await f.client(f.registry, ops[2])).deregister({ operator: c }, T));
    assert.deepEqual(await page(0, 100), [a, d]);
    // The first one leaves: the last takes index 0.
    await send(await (await f.client(f.registry, ops[0])).deregister({ operator: a }, T));
    assert.deepEqual(await page(0, 100), [d]);
    // b registers again: appended at the end.
    await send(await (await f.client(f.registry, ops[1])).register({ operator: b, name: "b" }, T));
    assert.deepEqual(await page(0, 100), [d, b]);
    assert.equal(ok(await r.get_keeper_count(T)), 2);
    // Each keeper's record still answers (swap-remove moved list entries, not records).
    assert.equal(ok<Info>(await r.get_keeper({ operator: d }, T)).name, "k3");
  });
});

/** Registers `n` throwaway contract-address operators in-process (each pays a 1-unit stake). */
async function throwaways(f: VigilFixture, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const op = StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
    await f.mint(op, 1n);
    await f.node.invoke(f.registry, "register", { operator: op, name: `t${i}` });
    out.push(op);
  }
  return out;
}

Deno.test("ATTACK (issue 20): 1,001 throwaway registrations do not lock the registry: a new keeper registers over JSON-RPC; count and pages stay exact, also after swap-removes", async () => {
  await withVigil(async (f) => {
    // The old registry refused the 1,001st keeper with RegistryFull (a cap of 1,000 in one
    // entry); 998 throwaway registrations at 1 unit of stake each locked every newcomer out.
    const junk = await throwaways(f, 1_001);
    const kim = await f.user(MIN_STAKE);
    const k = kim.publicKey();
    const kr = await f.client(f.registry, kim);
    await send(await kr.register({ operator: k, name: "kim" }, T));
    assert.equal(ok<Info>(await kr.get_keeper({ operator: k }, T)).name, "kim");
    const all = async () => {
      const n = ok<number>(await kr.get_keeper_count(T));
      const got: string[] = [];
      for (let start = 0; start < n + 100; start += 100) {
        const p = ok<string[]>(await kr.get_keepers({ start, limit: 100 }, T));
        assert.ok(p.length <= MAX_KEEPERS_PAGE);
        got.push(...p);
      }
      assert.equal(got.length, n, "pages cover the count exactly");
      assert.equal(new Set(got).size, n, "no keeper twice");
      return got;
    };
    assert.deepEqual(await all(), [...junk, k]);
    assert.equal(ok(await kr.get_keeper_count(T)), 1_002);
    // A page is at most 100 long whatever the limit asks.
    assert.equal(ok<string[]>(await kr.get_keepers({ start: 0, limit: 1_000 }, T)).length, 100);
    assert.deepEqual(ok(await kr.get_keepers({ start: 1_001, limit: 100 }, T)), [k]);
    // A throwaway in the middle leaves: kim (the last) takes its index.
    await f.node.invoke(f.registry, "deregister", { operator: junk[500] });
    assert.deepEqual(ok(await kr.get_keepers({ start: 500, limit: 1 }, T)), [k]);
    const after = await all();
    assert.equal(after.length, 1_001);
    assert.ok(!after.includes(junk[500]));
    // Kim leaves over JSON-RPC: the last throwaway takes index 500.
    await send(await kr.deregister({ operator: k }, T));
    assert.deepEqual(ok(await kr.get_keepers({ start: 500, limit: 1 }, T)), [junk[1_000]]);
    const last = await all();
    assert.deepEqual(new Set(last), new Set(junk.filter((_, i) => i !== 500)));
    console.log(
      `mass registration: 1,001 throwaway keepers, a new keeper registered (count 1,002), ` +
        `pages of <= 100 consistent after two swap-removes (count ${last.length})`,
    );
  }, { min_stake: 1n });
});
