/**
 * Attacks on the vault, registry and liquidator over JSON-RPC, as an attacker with nothing but an
 * account and some USDC would run them (`contract.Client` or hand-built transactions, real
 * signatures). Each test ends by checking the attacker gained nothing and the share price did
 * not fall.
 *
 * The first test is the security review's two-step theft (issue 12): it calls `draw` and
 * `return_proceeds` exactly as the review did. On the pre-issue-12 contracts those calls succeed
 * and the final balance assertions fail (the attacker is +6,000 USDC per round); on the flash
 * vault they do not exist, and the same theft through `flash` reverts.
 */
import assert from "node:assert/strict";
import {
  Address,
  Asset,
  Contract,
  type Keypair,
  nativeToScVal,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { addr, i128, sym, u32, vec } from "@vigil/soroban/spec_dsl";
import { auditVaultTransfers } from "@vigil/testing/transfer_audit";
import { script } from "@vigil/testing/scripted_executor";
import {
  borrowerNamed,
  honestRequests,
  legOf,
  nativePlan,
  openAuction,
  type PlanLeg,
  type PlanRequest,
  planScVal,
  Req,
  requestsScVal,
  startMarketWorld,
  xlmLeg,
} from "@vigil/testing/contracts/market_world";
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
} from "@vigil/testing/contracts/vigil_fixture";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { submitHostile } from "@vigil/testing/submit";

const T = TX_OPTS;

/** Alice's 50,000 USDC in the vault, and an attacker holding `attackerUsdc`. */
async function setup(f: VigilFixture, attackerUsdc = 1_000n * USDC) {
  const alice = await f.user(50_000n * USDC);
  const av = await f.client(f.vault, alice);
  await send(await av.deposit({ depositor: alice.publicKey(), amount: 50_000n * USDC }, T));
  const eve = await f.user(attackerUsdc);
  const eveVault = await f.client(f.vault, eve);
  const eveReg = await f.client(f.registry, eve);
  const snapshot = async () => ({
    eve: await f.balance(eve.publicKey()),
    vault: await f.balance(f.vault),
    state: ok<Record<string, bigint>>(await av.get_state(T)),
    alice: ok<Record<string, bigint>>(await av.balance({ depositor: alice.publicKey() }, T)),
  });
  return { alice, av, eve, eveVault, eveReg, snapshot };
}

/** The capital that prices shares: total_usdc less the profit still locked. */
const unlocked = (s: Record<string, bigint>) => s.total_usdc - s.locked_profit;

/** Price comparison: (total_usdc − locked_profit) / total_shares now ≥ before. */
function priceNotLower(before: Record<string, bigint>, after: Record<string, bigint>) {
  assert.ok(
    unlocked(after) * before.total_shares >= unlocked(before) * after.total_shares,
    "share price fell",
  );
}

/**
 * Sends `contractId.fn(args)` signed by `kp` as a raw transaction (no client-side spec): returns
 * "ok", or the reason it failed (simulation or on-chain).
 */
async function rawCall(
  f: VigilFixture,
  kp: Keypair,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
): Promise<string> {
  try {
    const account = await f.server.getAccount(kp.publicKey());
    const tx = new TransactionBuilder(account, { fee: "1000", networkPassphrase: f.passphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimeout(T.timeoutInSeconds)
      .build();
    const prepared = await f.server.prepareTransaction(tx);
    prepared.sign(kp);
    const got = await submitHostile(f.server, prepared);
    return got === "succeeded" ? "ok" : got === "refused" ? "send: ERROR" : "tx: FAILED";
  } catch (e) {
    return `refused: ${e instanceof Error ? e.message.slice(0, 200) : e}`;
  }
}

const a = (s: string) => new Address(s).toScVal();
const n = (v: bigint) => nativeToScVal(v, { type: "i128" });
const u64 = (v: bigint) => nativeToScVal(v, { type: "u64" });

Deno.test("ATTACK: the review's two-step theft (draw, return_proceeds(0), slash, re-register) leaves the attacker +0 USDC and the share price unchanged", async () => {
  await withVigil(async (f) => {
    const { eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    const before = await snapshot();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    for (let round = 0; round < 2; round++) {
      // The review's exact calls. On the old vault these succeeded (+6,000 USDC each round).
      assert.notEqual(await rawCall(f, eve, f.vault, "draw", [a(e), n(6_000n * USDC)]), "ok");
      assert.notEqual(
        await rawCall(f, eve, f.vault, "return_proceeds", [a(e), n(0n), u64(0n)]),
        "ok",
      );
      // The same theft through the only entry point left: borrow and keep (or forward) it.
      expectErr(await eveVault.flash(flashArgs(f, e, 6_000n * USDC, []), T), "FlashNotRepaid");
      const mule = await f.user();
      expectErr(
        await eveVault.flash(
          flashArgs(f, e, 6_000n * USDC, [{
            op: "pay",
            to: mule.publicKey(),
            amount: 6_000n * USDC,
          }]),
          T,
        ),
        "FlashNotRepaid",
      );
      assert.equal(await f.balance(mule.publicKey()), 0n);
      // Keep a draw "past the slash timeout", slash, deregister, register again.
      await f.advanceTime(3601);
      assert.notEqual(await rawCall(f, eve, f.registry, "slash", [a(e)]), "ok");
      await send(await eveReg.deregister({ operator: e }, T));
      await send(await eveReg.register({ operator: e, name: "eve-again" }, T));
    }
    await send(await eveReg.deregister({ operator: e }, T));
    const after = await snapshot();
    assert.equal(after.eve, before.eve, "attacker +0 USDC");
    assert.equal(after.vault, before.vault);
    assert.deepEqual(after.state, before.state, "vault books unchanged");
    assert.deepEqual(after.alice, before.alice, "the depositor's 50,000 USDC is still worth it");
    priceNotLower(before.state, after.state);
  });
});

Deno.test("ATTACK: return less, return nothing, flash twice, flash then deregister, re-register", async () => {
  await withVigil(async (f) => {
    const { eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    const before = await snapshot();
    const amount = 5_000n * USDC;
    // Return one unit less; return nothing.
    expectErr(
      await eveVault.flash(
        flashArgs(f, e, amount, [{ op: "pay", to: f.vault, amount: amount - 1n }]),
        T,
      ),
      "FlashNotRepaid",
    );
    expectErr(await eveVault.flash(flashArgs(f, e, amount, []), T), "FlashNotRepaid");
    // Flash twice: a nested flash from the executor is a re-entry of the vault (refused), and
    // two flashes in a row each stand alone (the cap applies per flash, nothing accumulates).
    const nested = flashArgs(f, e, 1n, [{ op: "repay_all" }]);
    expectHostErr(
      await eveVault.flash(
        flashArgs(f, e, amount, [
          {
            op: "call",
            contract: f.vault,
            fn: "flash",
            args: [addr(e), addr(f.executor), i128(1n), nested.data, u64(0n)],
          },
          { op: "repay_all" },
        ]),
        T,
      ),
      /re-entry|Context, InvalidAction/,
    );
    // Flash, then deregister inside it to take the stake back while the loan is out: keeping
    // the loan reverts everything; repaying it reverts too (the settled flash's
    // record_execution finds no keeper), and the stake stays in the registry.
    const dereg = { op: "call" as const, contract: f.registry, fn: "deregister", args: [addr(e)] };
    expectErr(await eveVault.flash(flashArgs(f, e, amount, [dereg]), T), "FlashNotRepaid");
    expectErr(
      await eveVault.flash(flashArgs(f, e, amount, [dereg, { op: "repay_all" }]), T),
      "NotRegistered",
    );
    assert.equal(await f.balance(f.registry), 100n * USDC);
    // Re-register: a fresh registration changes nothing about what a flash must repay.
    await send(await eveReg.deregister({ operator: e }, T));
    await send(await eveReg.register({ operator: e, name: "eve-2" }, T));
    expectErr(await eveVault.flash(flashArgs(f, e, amount, []), T), "FlashNotRepaid");
    const after = await snapshot();
    assert.equal(after.eve, before.eve);
    assert.deepEqual(after.state, before.state);
    assert.deepEqual(after.alice, before.alice);
    const info = ok<Record<string, bigint>>(await eveReg.get_keeper({ operator: e }, T));
    assert.equal(info.successful_fills, 0n, "no reverted flash is counted");
  });
});

Deno.test("ATTACK: hostile executors (keeps the money, re-enters, calls record_execution, transfers from the keeper or a depositor)", async () => {
  await withVigil(async (f) => {
    const { alice, eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    const before = await snapshot();
    const amount = 2_000n * USDC;
    // The scriptable executor is in the flash policy (the fixture's admin listed it): even an
    // executor the admin trusted enough to list cannot take the principal.
    assert.ok((await f.policy()).executors.includes(f.executor));
    // Keeps the money.
    expectErr(await eveVault.flash(flashArgs(f, e, amount, []), T), "FlashNotRepaid");
    // Re-enters the vault: deposit the loan as shares, or withdraw alice's shares.
    for (
      const call of [
        { fn: "deposit", args: [addr(e), i128(amount)] },
        { fn: "withdraw", args: [addr(alice.publicKey()), i128(1_000n * USDC)] },
      ]
    ) {
      expectHostErr(
        await eveVault.flash(
          flashArgs(f, e, amount, [{ op: "call", contract: f.vault, ...call }, {
            op: "repay_all",
          }]),
          T,
        ),
        /re-entry|Context, InvalidAction/,
      );
    }
    // Calls the registry's record_execution with the vault as caller to fake a huge record:
    // the vault did not authorize that call (only its own direct call would be).
    const fake = {
      op: "call" as const,
      contract: f.registry,
      fn: "record_execution",
      args: [
        addr(f.vault),
        addr(e),
        xdr.ScVal.scvBool(true),
        i128(1_000_000n * USDC),
        u64(1n),
      ],
    };
    const rec = await eveVault.flash(flashArgs(f, e, amount, [fake, { op: "repay_all" }]), T);
    assert.ok(rpc.Api.isSimulationError(rec.simulation!), "faked record_execution must fail");
    assert.match(rec.simulation.error, /Auth|InvalidAction/);
    // Transfers the loan from the keeper to a mule: not repaid → reverted.
    const mule = await f.user();
    expectErr(
      await eveVault.flash(
        flashArgs(f, e, amount, [{ op: "pay", to: mule.publicKey(), amount }]),
        T,
      ),
      "FlashNotRepaid",
    );
    // "Repays" with a depositor's money: needs alice's signature, which eve does not have (the
    // local node refuses the unrooted authorization already in simulation).
    expectHostErr(
      await eveVault.flash(
        flashArgs(f, e, amount, [{
          op: "pay_from",
          from: alice.publicKey(),
          to: f.vault,
          amount,
        }, { op: "pay", to: mule.publicKey(), amount }]),
        T,
      ),
      /Error\(Auth, InvalidAction\)/,
    );
    assert.equal(await f.balance(mule.publicKey()), 0n);
    const after = await snapshot();
    assert.equal(after.eve, before.eve);
    assert.deepEqual(after.state, before.state);
    assert.deepEqual(after.alice, before.alice);
    const info = ok<Record<string, bigint>>(await eveReg.get_keeper({ operator: e }, T));
    assert.equal(info.total_executions, 0n);
    assert.equal(info.total_profit, 0n);
    // An executor that transfers from the keeper AND repays: the keeper (who signed it) loses
    // its own money to the mule; the vault is whole. The executor can only spend the keeper's.
    await send(
      await eveVault.flash(
        flashArgs(f, e, amount, [{ op: "pay", to: mule.publicKey(), amount: 10n * USDC }, {
          op: "repay_all",
        }]),
        T,
      ),
    );
    assert.equal(await f.balance(mule.publicKey()), 10n * USDC);
    assert.equal(await f.balance(e), before.eve - 10n * USDC);
    assert.deepEqual((await snapshot()).state, before.state);
  });
});

/**
 * A policy a direct caller of the liquidator may pass: anything it likes within the bound the
 * liquidator itself enforces (max_slippage_bps ≤ 1000).
 */
function hostilePolicy(pools: string[], routers: string[] = [], bps = 1_000) {
  return { executors: [], max_slippage_bps: bps, pools, routers, tokens: [] };
}

Deno.test("ATTACK: the liquidator called directly with hostile arguments (and a hostile policy naming a fake pool) moves only the caller's own money", async () => {
  await withVigil(async (f) => {
    const { eve, snapshot } = await setup(f);
    const e = eve.publicKey();
    const keeper = await f.user(500n * USDC);
    const k = keeper.publicKey();
    const liq = await f.client(f.liquidator, eve);
    // A fake pool that takes the spender's USDC and gives nothing back; the caller names it in
    // the policy it passes itself (exec trusts the policy only because the vault forwards its
    // own; called directly, nothing but the keeper argument's signature protects anyone).
    const pool = await deployFixture(f.node, "taking_pool");
    const policy = hostilePolicy([pool, f.usdc], [f.usdc]);
    const empty = nativePlan(pool, [], []);
    const taking = nativePlan(pool, [{ address: f.usdc, amount: 400n * USDC, type: 5 }], []);
    const before = await snapshot();
    // Spend another keeper's USDC (through the fake pool, or paid to eve): needs that keeper's
    // signature, which eve does not have.
    for (const [data, amount] of [[taking, 500n * USDC], [empty, 100n * USDC]] as const) {
      await expectAuthFailure(
        f,
        await liq.exec({ keeper: k, vault: e, usdc: f.usdc, amount, data, policy }, T),
        eve,
        k,
      );
    }
    // Spend the vault's USDC by naming the vault as the keeper: the vault authorizes nothing.
    await expectAuthFailure(
      f,
      await liq.exec(
        { keeper: f.vault, vault: e, usdc: f.usdc, amount: 1n, data: empty, policy },
        T,
      ),
      eve,
      f.vault,
    );
    // With herself as the keeper, eve can only pay her own money to an address she names.
    const other = await f.user();
    assert.equal(
      await send(
        await liq.exec({
          keeper: e,
          vault: other.publicKey(),
          usdc: f.usdc,
          amount: 1n * USDC,
          data: empty,
          policy,
        }, T),
      ),
      1n * USDC,
    );
    assert.equal(await f.balance(other.publicKey()), 1n * USDC);
    assert.equal(await f.balance(e), before.eve - 1n * USDC);
    // The repayment allowance the liquidator set for itself is gone when exec returns.
    const usdcClient = await f.client(f.usdc, eve);
    assert.equal(ok(await usdcClient.allowance({ from: e, spender: f.liquidator }, T)), 0n);
    assert.equal(await f.balance(k), 500n * USDC, "the victim keeper's USDC is untouchable");
    // Malformed plans: InvalidPlan before anything moves.
    const bad = (s: Partial<{ kind: number; path: string[]; amountIn: bigint; minOut: bigint }>) =>
      nativePlan(pool, [], [{
        amountIn: 1n,
        kind: 0,
        minOut: 0n,
        path: [f.usdc, f.usdc],
        router: f.usdc,
        ...s,
      }]);
    for (
      const p of [
        bad({ kind: 7 }),
        bad({ path: [f.usdc] }),
        bad({ amountIn: -1n }),
        bad({ minOut: -1n }),
      ]
    ) {
      expectErr(
        await liq.exec({ keeper: e, vault: e, usdc: f.usdc, amount: 0n, data: p, policy }, T),
        "InvalidPlan",
      );
    }
    expectErr(
      await liq.exec({ keeper: e, vault: e, usdc: f.usdc, amount: -1n, data: empty, policy }, T),
      "InvalidPlan",
    );
    // A policy whose slippage bound exceeds 10 % (the vault never stores one): InvalidPlan.
    expectErr(
      await liq.exec({
        keeper: e,
        vault: e,
        usdc: f.usdc,
        amount: 0n,
        data: empty,
        policy: hostilePolicy([pool], [], 1_001),
      }, T),
      "InvalidPlan",
    );
    // A pool or router the passed policy does not name: NotAllowed (the check itself works).
    expectErr(
      await liq.exec({
        keeper: e,
        vault: e,
        usdc: f.usdc,
        amount: 0n,
        data: empty,
        policy: hostilePolicy([f.usdc]),
      }, T),
      "NotAllowed",
    );
    // A plan that spends more USDC than it produced: LiquidationShortfall.
    const losing = nativePlan(pool, [{ address: f.usdc, amount: 3n * USDC, type: 5 }], []);
    expectErr(
      await liq.exec(
        { keeper: e, vault: e, usdc: f.usdc, amount: 1n * USDC, data: losing, policy },
        T,
      ),
      "LiquidationShortfall",
    );
    // Eve's own money through her fake pool: she can lose it, nobody else can.
    const eveBefore = await f.balance(e);
    await send(
      await liq.exec({
        keeper: e,
        vault: other.publicKey(),
        usdc: f.usdc,
        amount: 5n * USDC,
        data: nativePlan(pool, [{ address: f.usdc, amount: 2n * USDC, type: 5 }], []),
        policy,
      }, T),
    );
    assert.equal(await f.balance(e), eveBefore - 5n * USDC);
    assert.equal(await f.balance(pool), 2n * USDC);
    assert.equal(await f.balance(k), 500n * USDC);
    // Through the vault the policy is the vault's: the fake pool is not in it (NotAllowed);
    // once the admin lists it, a losing liquidation repays less than it borrowed (reverts).
    const eveReg = await f.client(f.registry, eve);
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    const eveVault = await f.client(f.vault, eve);
    const viaVault = () =>
      eveVault.flash({
        keeper: e,
        executor: f.liquidator,
        amount: 100n * USDC,
        data: planScVal(pool, [{ address: f.usdc, amount: 1n, type: 5 }], []),
        response_time_ms: 0n,
      }, T);
    expectErr(await viaVault(), "NotAllowed");
    const p = await f.policy();
    await f.setPolicy({ ...p, pools: [pool] });
    expectErr(await viaVault(), "FlashNotRepaid");
    const after = await snapshot();
    assert.deepEqual(after.state, before.state);
    assert.deepEqual(after.alice, before.alice);
    assert.equal(after.vault, before.vault);
  });
});

Deno.test("liquidator: a flash landing in a later ledger than simulated still settles (variable repayment, fixed authorization)", async () => {
  await withVigil(async (f) => {
    const { eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    const pool = await deployFixture(f.node, "clock_pool");
    await f.mint(pool, 1_000n * USDC);
    const p = await f.policy();
    await f.setPolicy({ ...p, pools: [pool] });
    const before = await snapshot();
    // Simulated (and signed) now; the repayment depends on the ledger second it lands in.
    const tx = await eveVault.flash({
      keeper: e,
      executor: f.liquidator,
      amount: 100n * USDC,
      data: planScVal(pool, [{ address: f.usdc, amount: 1n * USDC, type: 5 }], []),
      response_time_ms: 0n,
    }, T);
    const simulated = ok<bigint>(tx);
    await f.advanceTime(500); // a later ledger, another second: another repayment amount
    const profit = await send<bigint>(tx);
    assert.notEqual(profit, simulated, "the repayment amount moved between simulation and landing");
    assert.ok(profit >= 0n && profit < 997n, `profit ${profit}`);
    const after = await snapshot();
    assert.equal(after.state.total_usdc, before.state.total_usdc + profit);
    assert.equal(after.eve, before.eve, "the keeper's own USDC is untouched");
    const usdcClient = await f.client(f.usdc, eve);
    assert.equal(ok(await usdcClient.allowance({ from: e, spender: f.liquidator }, T)), 0n);
  });
});

Deno.test("ATTACK (was KNOWN LIMIT): a keeper's own executor that repays exactly the principal and keeps the gain is refused (ExecutorNotAllowed), nothing moves", async () => {
  await withVigil(async (f) => {
    const { eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    // A profitable "liquidation": the pool pays back what it took plus ledger second mod 997.
    const pool = await deployFixture(f.node, "clock_pool");
    await f.mint(pool, 1_000n * USDC);
    const req = xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: sym("address"), val: addr(f.usdc) }),
      new xdr.ScMapEntry({ key: sym("amount"), val: i128(1n * USDC) }),
      new xdr.ScMapEntry({ key: sym("request_type"), val: u32(5) }),
    ]);
    const submit = {
      op: "call" as const,
      contract: pool,
      fn: "submit",
      args: [addr(e), addr(e), addr(e), vec(req)],
    };
    // Eve's own executor (the same scriptable code, her deployment): it runs the liquidation,
    // repays exactly `amount` and would leave the gain with her. Stopped by the vault's
    // executor check (ExecutorNotAllowed, vault `flash`) before the loan leaves the vault.
    const own = await deployFixture(f.node, "scripted_executor");
    const poolBefore = await f.balance(pool);
    const before = await snapshot();
    for (let i = 0; i < 3; i++) {
      expectErr(
        await eveVault.flash({
          ...flashArgs(f, e, 100n * USDC, [submit, { op: "repay_all" }]),
          executor: own,
        }, T),
        "ExecutorNotAllowed",
      );
      await f.advanceTime(1);
    }
    // Eve cannot list her executor herself: set_flash_policy needs the admin's signature.
    const listed = await f.policy();
    await expectAuthFailure(
      f,
      await eveVault.set_flash_policy({
        policy: { ...listed, executors: [...listed.executors, own] },
      }, T),
      eve,
      f.admin.publicKey(),
    );
    assert.deepEqual(await f.policy(), listed);
    expectErr(
      await eveVault.flash({
        ...flashArgs(f, e, 100n * USDC, [submit, { op: "repay_all" }]),
        executor: own,
      }, T),
      "ExecutorNotAllowed",
    );
    // The same liquidation through Vigil's liquidator (the admin lists the pool) books the gain
    // for the depositors and leaves eve's USDC exactly as it was.
    const p = await f.policy();
    await f.setPolicy({ ...p, pools: [pool] });
    let booked = 0n;
    for (let i = 0; i < 3 && booked === 0n; i++) {
      booked = await send<bigint>(
        await eveVault.flash({
          keeper: e,
          executor: f.liquidator,
          amount: 100n * USDC,
          data: planScVal(pool, [{ address: f.usdc, amount: 1n * USDC, type: 5 }], []),
          response_time_ms: 0n,
        }, T),
      );
      if (booked === 0n) await f.advanceTime(1); // ledger second ≡ 0 mod 997: no gain
    }
    assert.ok(booked > 0n, "the liquidation's gain went to the vault");
    const after = await snapshot();
    assert.equal(after.eve, before.eve, "attacker +0 USDC");
    assert.equal(after.state.total_usdc, before.state.total_usdc + booked);
    assert.equal(after.vault, before.vault + booked);
    assert.equal(await f.balance(pool), poolBefore - booked);
    priceNotLower(before.state, after.state);
  });
});

Deno.test("liquidator: a lot asset the pool's oracle cannot price is refused (PriceUnavailable), not swapped without a floor", async () => {
  await withVigil(async (f) => {
    const { eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    // A pool (listed by the admin) whose oracle has no price; its "lot" is 10 XLM.
    const pool = await deployFixture(f.node, "priceless_pool");
    const xlm = await f.node.deployAsset(Asset.native());
    await f.node.invoke(xlm, "transfer", {
      from: f.admin.publicKey(),
      to: pool,
      amount: 100n * USDC,
    }, {
      source: f.admin.publicKey(),
    });
    const p = await f.policy();
    await f.setPolicy({ ...p, pools: [pool], routers: [f.usdc] });
    const before = await snapshot();
    expectErr(
      await eveVault.flash({
        keeper: e,
        executor: f.liquidator,
        amount: 1n * USDC,
        data: planScVal(pool, [{ address: xlm, amount: 10n * USDC, type: 3 }], [{
          amountIn: 10n * USDC,
          kind: 0,
          minOut: 1n,
          path: [xlm, f.usdc],
          router: f.usdc,
        }]),
        response_time_ms: 0n,
      }, T),
      "PriceUnavailable",
    );
    const after = await snapshot();
    assert.equal(after.eve, before.eve);
    assert.deepEqual(after.state, before.state);
  });
});

Deno.test("ATTACK: the executor cannot act as the vault that called it (the invoker rule covers only the vault's own direct calls)", async () => {
  await withVigil(async (f) => {
    const { eve, eveVault, eveReg, snapshot } = await setup(f);
    const e = eve.publicKey();
    await send(await eveReg.register({ operator: e, name: "eve" }, T));
    const before = await snapshot();
    const mule = await f.user();
    const amount = 1_000n * USDC;
    const latest = (await f.server.getLatestLedger()).sequence;
    for (
      const steps of [
        // usdc.transfer(vault → mule): the vault is the executor's invoker, not the SAC's.
        [{ op: "pay_from" as const, from: f.vault, to: mule.publicKey(), amount }, {
          op: "repay_all" as const,
        }],
        // usdc.approve(vault → eve): an allowance to drain the vault after the flash.
        [{
          op: "call" as const,
          contract: f.usdc,
          fn: "approve",
          args: [addr(f.vault), addr(e), i128(10n ** 15n), u32(latest + 10_000)],
        }, { op: "repay_all" as const }],
        // usdc.transfer(vault → vault): a "repayment" out of the vault's own balance.
        [{ op: "pay_from" as const, from: f.vault, to: f.vault, amount }],
      ]
    ) {
      expectHostErr(
        await eveVault.flash(flashArgs(f, e, amount, steps), T),
        /Error\(Auth, InvalidAction\)/,
      );
    }
    const usdcClient = await f.client(f.usdc, eve);
    assert.equal(ok(await usdcClient.allowance({ from: f.vault, spender: e }, T)), 0n);
    assert.equal(await f.balance(mule.publicKey()), 0n);
    const after = await snapshot();
    assert.equal(after.eve, before.eve);
    assert.equal(after.vault, before.vault);
    assert.deepEqual(after.state, before.state);
    assert.deepEqual(after.alice, before.alice);
  });
});

Deno.test("ATTACK (was KNOWN LIMIT): a just-in-time depositor's gain is bounded by its pro-rata profit x cooldown / profit_unlock_secs; the long-standing depositor keeps the rest", async () => {
  await withVigil(async (f) => {
    const { snapshot } = await setup(f);
    // Kim, an honest keeper whose liquidation makes 1,000 USDC for the vault.
    const kim = await f.user(1_100n * USDC);
    const k = kim.publicKey();
    await send(await (await f.client(f.registry, kim)).register({ operator: k, name: "kim" }, T));
    const profit = 1_000n * USDC;
    // Jay sees the public auction, deposits as much as alice just before the profitable block.
    const jay = await f.user(50_000n * USDC);
    const j = jay.publicKey();
    const jv = await f.client(f.vault, jay);
    const shares = await send<bigint>(
      await jv.deposit({ depositor: j, amount: 50_000n * USDC }, T),
    );
    const before = await snapshot();
    const amount = 10_000n * USDC;
    await send(
      await (await f.client(f.vault, kim)).flash(
        flashArgs(f, k, amount, [{ op: "pay", to: f.vault, amount: amount + profit }]),
        T,
      ),
    );
    const st = ok<Record<string, bigint>>(await jv.get_state(T));
    // The whole profit is locked at the flash; it unlocks until unlock_end (1 day).
    assert.equal(st.total_usdc, before.state.total_usdc + profit);
    const flashAt = st.unlock_end - 86_400n;
    // Jay leaves the moment his cooldown (1 h) ends.
    const rec = ok<Record<string, bigint>>(await jv.get_depositor({ depositor: j }, T));
    await f.advanceTo(rec.unlock_at - 1n);
    const out = await send<bigint>(await jv.withdraw({ depositor: j, shares }, T));
    const jayGain = out - 50_000n * USDC;
    const proRata = (profit * shares) / before.state.total_shares;
    const exposed = rec.unlock_at - flashAt;
    assert.ok(exposed <= 3_600n);
    const bound = (proRata * exposed) / 86_400n + 1n;
    console.log(
      `JIT (scripted flash, profit ${profit}): jay's gain ${jayGain} units = ` +
        `${((Number(jayGain) / Number(proRata)) * 100).toFixed(2)} % of his pro-rata ${proRata} ` +
        `(bound ${bound}: ${exposed} s of a 86,400 s unlock)`,
    );
    assert.ok(jayGain >= 0n && jayGain <= bound, `jay took ${jayGain}, bound ${bound}`);
    // After the full unlock alice holds the rest of the profit (less the locked minimum's
    // share and rounding).
    await f.advanceTo(st.unlock_end);
    const aliceGain = (await snapshot()).alice.usdc_value - before.alice.usdc_value;
    assert.ok(aliceGain >= profit - jayGain - 2n * USDC / 10n, `alice kept ${aliceGain}`);
    assert.ok(aliceGain <= profit - jayGain);
  });
});

Deno.test("ATTACK (real Blend auction): plans that keep part of the lot are refused; the liquidator swaps the whole lot, the vault books the profit, the keeper ends +0 in every asset", async () => {
  const w = await startMarketWorld();
  try {
    // The deployment's policy: Vigil's liquidator, the market's pool and Soroswap router.
    assert.deepEqual(await w.policy(), {
      executors: [w.liquidator],
      max_slippage_bps: 300,
      pools: [w.pool],
      routers: [w.router],
      tokens: [],
    });
    await openAuction(w);
    const e = w.eve.publicKey();
    const ev = await w.client(w.vault, w.eve);
    const amount = 6_000n * USDC; // above the bid: the pool refunds the rest of the repayment
    const flash = (requests: PlanRequest[], swaps: PlanLeg[], pool = w.pool) =>
      ev.flash({
        keeper: e,
        executor: w.liquidator,
        amount,
        data: planScVal(pool, requests, swaps),
        response_time_ms: 5n,
      }, T);
    const honest = honestRequests(w, amount);
    const [fill, repay, withdraw] = honest;
    const leg = xlmLeg(w, 1n * USDC, 0n);
    const snap = async () => ({
      usdc: await w.bal(w.usdc, e),
      xlm: await w.bal(w.xlm, e),
      weth: await w.bal(w.weth, e),
      positions: await w.node.view(w.pool, "get_positions", { address: e }),
      vault: await w.bal(w.usdc, w.vault),
      state: await w.state(),
      liqUsdc: await w.bal(w.usdc, w.liquidator),
      liqXlm: await w.bal(w.xlm, w.liquidator),
      poolUsdc: await w.bal(w.usdc, w.pool),
      pairUsdc: await w.bal(w.usdc, w.pair),
      alice: await w.node.view<Record<string, bigint>>(w.vault, "balance", {
        depositor: w.depositor.publicKey(),
      }),
    });
    const before = await snap();

    // Each of these would leave part of the liquidation's value with eve (the liquidator check
    // that stops it in brackets). All are refused in simulation: nothing is sent, nothing moves.
    // 1. Keep the collateral in her pool position (no withdraw, so no leg): PositionsChanged.
    expectErr(await flash([fill, repay], []), "PositionsChanged");
    // 2. Withdraw only part of it: PositionsChanged (positions compared after the submit).
    expectErr(
      await flash([fill, repay, { ...withdraw, amount: 1_000n * USDC }], [leg]),
      "PositionsChanged",
    );
    // 3. Borrow USDC against the seized collateral: InvalidPlan (only types 6, 5, 3).
    expectErr(
      await flash([...honest, { address: w.usdc, amount: 100n * USDC, type: Req.Borrow }], [leg]),
      "InvalidPlan",
    );
    // 4. Repay with a non-USDC asset: InvalidPlan (repay address must be USDC).
    expectErr(
      await flash([...honest, { address: w.xlm, amount: 1n, type: Req.Repay }], [leg]),
      "InvalidPlan",
    );
    // 5. Swap the lot into another asset (WETH) instead of USDC: InvalidPlan (last hop = USDC).
    expectErr(await flash(honest, [{ ...leg, path: [w.xlm, w.weth] }]), "InvalidPlan");
    // 6. Withdraw the lot and not swap it: InvalidPlan (one leg per withdrawn lot asset).
    expectErr(await flash(honest, []), "InvalidPlan");
    // 7. Two legs for the same asset, or a leg for an asset not withdrawn: InvalidPlan.
    expectErr(await flash(honest, [leg, leg]), "InvalidPlan");
    expectErr(await flash(honest, [leg, { ...leg, path: [w.weth, w.usdc] }]), "InvalidPlan");
    // 8. A leg of kind 1 (once Phoenix's multihop; no such venue since issue 21), even through the
    // listed router: InvalidPlan.
    expectErr(await flash(honest, [{ ...leg, kind: 1 }]), "InvalidPlan");
    // 9. A router not in the policy (a fake that keeps the lot): NotAllowed.
    const skim = await deployFixture(w.node, "skim_router");
    expectErr(await flash(honest, [{ ...leg, router: skim }]), "NotAllowed");
    // 10. A pool not in the policy (a fake that "fills" by taking and keeping): NotAllowed.
    const fakePool = await deployFixture(w.node, "taking_pool");
    expectErr(await flash(honest, [leg], fakePool), "NotAllowed");
    // 11. Her own executor running the honest plan and repaying exactly `amount`: refused by the
    //     vault (ExecutorNotAllowed), even though it is a copy of working code.
    const own = await deployFixture(w.node, "scripted_executor");
    const ownData = script({
      op: "call",
      contract: w.pool,
      fn: "submit",
      args: [addr(e), addr(e), addr(e), requestsScVal(honest)],
    }, { op: "repay_all" });
    expectErr(
      await ev.flash({ keeper: e, executor: own, amount, data: ownData, response_time_ms: 5n }, T),
      "ExecutorNotAllowed",
    );
    // 12. min_out 0 while the DEX price is far below the oracle's (a whale sold XLM; a keeper
    //     could have done it to buy the lot back cheap): the liquidator's oracle floor
    //     (oracle value − 3 %) makes the router refuse the swap, so the whole flash reverts.
    const whaleUsdc = await w.dexSellXlm(4_000_000n);
    const cheap = await flash(honest, [leg]);
    assert.ok(
      rpc.Api.isSimulationError(cheap.simulation!),
      "a swap below the oracle floor must fail",
    );
    assert.doesNotMatch(
      cheap.simulation.error,
      /Error\(Contract, #1[4-6]\d\)/,
      "not a Vigil check",
    );
    assert.deepEqual(
      { ...await snap(), pairUsdc: 0n },
      { ...before, pairUsdc: 0n },
      "nothing moved (but the whale's trade)",
    );
    await w.dexBuyXlm(whaleUsdc); // the DEX price back near where it was
    const pairBefore = await w.bal(w.usdc, w.pair);

    // 13. The plan that tries to keep most of the lot by declaring amount_in = 1 XLM (min_out 0):
    //     the liquidator swaps EVERYTHING eve received, at no less than the oracle floor, and
    //     the vault gets all of it. The same plan as 12, now above the floor: it settles.
    const { result: profit, fee, hash } = await w.sendFee<bigint>(await flash(honest, [leg]));
    const after = await snap();
    console.log(
      `real fill through the liquidator: profit ${profit} units, fee ${fee} stroops, pair paid ` +
        `${pairBefore - after.pairUsdc} units, pool took ${after.poolUsdc - before.poolUsdc} units`,
    );
    assert.ok(profit > 0n, `profit ${profit}`);
    assert.equal(after.usdc, before.usdc, "eve +0 USDC");
    assert.equal(after.xlm, before.xlm - fee, "eve +0 XLM (only the transaction fee)");
    assert.equal(after.weth, before.weth, "eve +0 WETH");
    assert.deepEqual(after.positions, before.positions, "eve keeps nothing in the pool");
    assert.equal(after.liqUsdc, 0n, "the liquidator keeps nothing");
    assert.equal(after.liqXlm, 0n);
    // The vault booked the whole gain: what the pair paid out minus what the pool took.
    assert.equal(after.vault - before.vault, profit);
    assert.equal(after.state.total_usdc, before.state.total_usdc + profit);
    assert.equal(after.state.total_profit, before.state.total_profit + profit);
    assert.equal(
      profit,
      (pairBefore - after.pairUsdc) - (after.poolUsdc - before.poolUsdc),
      "every USDC the liquidation produced reached the vault",
    );
    priceNotLower(before.state, after.state);
    // The profit unlocks over a day; then the depositor holds (nearly) all of it.
    await w.node.advanceTime(86_400);
    const later = await w.node.view<Record<string, bigint>>(w.vault, "balance", {
      depositor: w.depositor.publicKey(),
    });
    assert.ok(later.usdc_value - before.alice.usdc_value >= profit - 1n * USDC, "earned it");
    // No allowance outlives the flash.
    const usdcC = await w.client(w.usdc, w.eve);
    const xlmC = await w.client(w.xlm, w.eve);
    assert.equal(ok(await usdcC.allowance({ from: e, spender: w.liquidator }, T)), 0n);
    assert.equal(ok(await xlmC.allowance({ from: e, spender: w.liquidator }, T)), 0n);
    // The chain's own record (SAC transfer events): the flash put back more than it took, and
    // the keeper's net in USDC and in the lot asset is exactly 0 within the transaction.
    const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, 1, [w.xlm, w.weth]);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(audit.keeperGains, []);
    const tx = audit.txs.find((t) => t.txHash === hash)!;
    assert.ok(tx.flash && tx.keeper === e);
    assert.equal(tx.in - tx.out, profit);
    assert.deepEqual(tx.keeperNet, { [w.usdc]: 0n, [w.xlm]: 0n });
  } finally {
    await w.close();
  }
});

Deno.test("KNOWN LIMIT (real Blend auction): a keeper can sandwich the liquidator's swap down to the oracle floor; what it takes is bounded by the DEX price's excess over that floor", async () => {
  const w = await startMarketWorld();
  try {
    await openAuction(w);
    const e = w.eve.publicKey();
    const ev = await w.client(w.vault, w.eve);
    const amount = 6_000n * USDC;
    const before = await w.state();
    const xlm0 = await w.bal(w.xlm, w.pair);
    const usdc0 = await w.bal(w.usdc, w.pair);
    // The oracle says 0.085 (the −15 % shock); the DEX still trades at 0.10. The attacker's other
    // account (the world's whale here) sells 1.5M XLM first, pushing the DEX to ≈ 0.086, just
    // above the liquidator's floor (0.085 · 97 %)…
    const front = 1_500_000n * USDC;
    const got = await w.dexSellXlm(1_500_000n);
    // …then eve's flash: the liquidator sells the whole lot at the depressed price (above the
    // floor, so it settles)…
    const { result: profit } = await w.sendFee<bigint>(
      await ev.flash({
        keeper: e,
        executor: w.liquidator,
        amount,
        data: planScVal(w.pool, honestRequests(w, amount), [xlmLeg(w, 1n, 0n)]),
        response_time_ms: 1n,
      }, T),
    );
    const lot = (await w.bal(w.xlm, w.pair)) - xlm0 - front;
    // …and buys the XLM back with what it got: more XLM than it sold.
    const back = await w.dexBuyXlm(got);
    const kept = back - front;
    const oracleValue = (kept * 850_000n) / USDC;
    console.log(
      `sandwich: lot ${lot} units XLM sold for ${profit} units of vault profit; the attacker ` +
        `kept ${kept} units XLM (≈ ${oracleValue} units USDC at the oracle), DEX before ` +
        `${(usdc0 * USDC) / xlm0} per XLM (7 dec.), oracle 850000, floor 824500`,
    );
    assert.ok(profit > 0n, "the vault still books a profit (the floor holds)");
    assert.ok(kept > 0n, "the sandwich pays: part of the lot's value went to the attacker");
    // Bound: never more than the lot times the DEX price's excess over the floor.
    const excess = (usdc0 * USDC) / xlm0 - 824_500n;
    assert.ok(oracleValue <= (lot * excess) / USDC, "bounded by lot × (DEX − floor)");
    assert.equal((await w.state()).total_usdc, before.total_usdc + profit);
  } finally {
    await w.close();
  }
});

Deno.test("ATTACK (real Blend auction, XLM + WETH lot): keeping one of two lot assets is refused; the honest two-leg plan leaves the keeper +0 in USDC, XLM and WETH", async () => {
  const w = await startMarketWorld();
  try {
    const user = borrowerNamed(w, "borrower_mixed");
    await openAuction(w, { user, lot: [w.xlm, w.weth] });
    const e = w.eve.publicKey();
    const ev = await w.client(w.vault, w.eve);
    const amount = 6_000n * USDC;
    const flash = (requests: PlanRequest[], swaps: PlanLeg[]) =>
      ev.flash({
        keeper: e,
        executor: w.liquidator,
        amount,
        data: planScVal(w.pool, requests, swaps),
        response_time_ms: 5n,
      }, T);
    const both = honestRequests(w, amount, user, [w.xlm, w.weth]);
    const snap = async () => ({
      usdc: await w.bal(w.usdc, e),
      xlm: await w.bal(w.xlm, e),
      weth: await w.bal(w.weth, e),
      positions: await w.node.view(w.pool, "get_positions", { address: e }),
      state: await w.state(),
      liq: [
        await w.bal(w.usdc, w.liquidator),
        await w.bal(w.xlm, w.liquidator),
        await w.bal(w.weth, w.liquidator),
      ],
    });
    const before = await snap();
    // Withdraw both, swap only XLM (keep the WETH in the account): InvalidPlan (one leg per
    // withdrawn asset).
    expectErr(await flash(both, [legOf(w, w.xlm)]), "InvalidPlan");
    // Withdraw and swap only XLM, leave the WETH collateral in the position: PositionsChanged.
    expectErr(
      await flash(honestRequests(w, amount, user, [w.xlm]), [legOf(w, w.xlm)]),
      "PositionsChanged",
    );
    // Swap the WETH into XLM instead of USDC: InvalidPlan.
    expectErr(
      await flash(both, [legOf(w, w.xlm), { ...legOf(w, w.weth), path: [w.weth, w.xlm] }]),
      "InvalidPlan",
    );
    // The WETH leg through USDC and on to XLM (the path must END in USDC): InvalidPlan.
    expectErr(
      await flash(both, [legOf(w, w.xlm), {
        ...legOf(w, w.weth),
        path: [w.weth, w.usdc, w.xlm],
      }]),
      "InvalidPlan",
    );
    assert.deepEqual(await snap(), before, "nothing moved");
    // Honest: both legs, tiny amount_in (all of each asset is swapped anyway).
    const { result: profit, fee, hash } = await w.sendFee<bigint>(
      await flash(both, [legOf(w, w.weth), legOf(w, w.xlm)]),
    );
    const after = await snap();
    assert.ok(profit > 0n, `profit ${profit}`);
    assert.equal(after.usdc, before.usdc, "eve +0 USDC");
    assert.equal(after.xlm, before.xlm - fee, "eve +0 XLM (the fee aside)");
    assert.equal(after.weth, before.weth, "eve +0 WETH");
    assert.deepEqual(after.positions, before.positions);
    assert.deepEqual(after.liq, [0n, 0n, 0n], "the liquidator keeps nothing");
    assert.equal(after.state.total_usdc, before.state.total_usdc + profit);
    priceNotLower(before.state, after.state);
    const audit = await auditVaultTransfers(w.node.rpcUrl, w.usdc, w.vault, 1, [w.xlm, w.weth]);
    assert.deepEqual(audit.violations, []);
    assert.deepEqual(audit.keeperGains, []);
    const tx = audit.txs.find((t) => t.txHash === hash)!;
    assert.deepEqual(tx.keeperNet, { [w.usdc]: 0n, [w.xlm]: 0n, [w.weth]: 0n });
    console.log(`mixed lot: profit ${profit} units, two legs`);
  } finally {
    await w.close();
  }
});
