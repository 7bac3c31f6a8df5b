/**
 * Issue 20 — "depositors' yield cannot be taken" — attacked over JSON-RPC against the Wasm
 * contracts on the market scenario (a real Blend-v2-compatible auction, `market_world.ts`). Every
 * attacker action is a transaction signed with the attacker's own key; only world setup (funding,
 * oracle prices, opening the auction) runs in-process. Each test prints a one-line summary.
 *
 * a. multi-hop skim: a keeper issues a token, creates pairs [XLM, own] and [own, USDC] on the
 *    listed Soroswap router's factory (permissionless `create_pair`) and routes the lot through
 *    them with min_out 0, so that its pairs buy the lot at the oracle floor and it keeps the rest.
 * b. the admin lists its own executor: the change is queued; depositors see it and leave first.
 * c. a just-in-time deposit around a profitable flash earns only the slice of the profit that
 *    unlocks during its cooldown.
 * d. dust flashes (1 unit, empty plan) are executions, not fills.
 * (Mass registration: registry_test.ts; liveness / TTL: ttl_test.ts.)
 */
import assert from "node:assert/strict";
import { Asset, type Keypair, Operation, rpc, TransactionBuilder } from "@stellar/stellar-sdk";
import { addr } from "@vigil/soroban/spec_dsl";
import { getAmountOut } from "@vigil/localnet/protocols/dex/math";
import { stellarAsset } from "@vigil/localnet/protocols/oracle/contract/spec";
import { script } from "@vigil/testing/scripted_executor";
import {
  honestRequests,
  type MarketWorld,
  openAuction,
  type PlanLeg,
  planScVal,
  requestsScVal,
  startMarketWorld,
  xlmLeg,
} from "@vigil/testing/contracts/market_world";
import { expectErr, ok, TX_OPTS, USDC } from "@vigil/testing/contracts/vigil_fixture";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { sendOk } from "@vigil/testing/submit";

const T = TX_OPTS;
const AMOUNT = 6_000n * USDC;
const DAY = 86_400n;

/** Closes ledgers until the latest close time is `t`. */
async function advanceTo(w: MarketWorld, t: bigint): Promise<void> {
  const d = t - w.now();
  if (d > 0n) await w.node.advanceTime(Number(d));
}

/** Eve's flash through Vigil's liquidator with the honest requests and `swaps`. */
async function eveFlash(w: MarketWorld, swaps: PlanLeg[]) {
  const ev = await w.client(w.vault, w.eve);
  return ev.flash({
    keeper: w.eve.publicKey(),
    executor: w.liquidator,
    amount: AMOUNT,
    data: planScVal(w.pool, honestRequests(w, AMOUNT), swaps),
    response_time_ms: 5n,
  }, T);
}

const fmt = (units: bigint) => {
  const neg = units < 0n;
  const a = neg ? -units : units;
  const whole = (a / USDC).toLocaleString("en-US");
  return `${neg ? "-" : ""}${whole}.${(a % USDC).toString().padStart(7, "0").slice(0, 2)}`;
};

Deno.test("ATTACK a (real Blend auction): the keeper's own token and pairs on the listed router (path [XLM, own, USDC], min_out 0) are refused (NotAllowed), nothing moves, the keeper is +0; the honest direct plan books the profit", async () => {
  const w = await startMarketWorld();
  try {
    await openAuction(w);
    const e = w.eve.publicKey();
    const deadline = () => w.now() + 3_600n;
    let fees = 0n;
    const signed = async <R>(tx: Parameters<MarketWorld["sendFee"]>[0]) => {
      const r = await w.sendFee<R>(tx);
      fees += r.fee;
      return r.result;
    };
    // Size the attacker's pairs the way the attack needs: a dry run of the honest fill gives the
    // lot, and the old liquidator's floor was the oracle value less max_slippage_bps (3 %).
    const dry = w.node.snapshot();
    const pairXlm = await w.bal(w.xlm, w.pair);
    await w.sendFee(await eveFlash(w, [xlmLeg(w, 1n, 0n)]));
    const lot = (await w.bal(w.xlm, w.pair)) - pairXlm;
    w.node.revert(dry);
    const price = async (t: string) =>
      (await w.node.view<{ price: bigint }>(w.oracle, "lastprice", [stellarAsset(t)])).price;
    const floor = (((lot * await price(w.xlm)) / await price(w.usdc)) * 9_700n) / 10_000n;

    const usdc0 = await w.bal(w.usdc, e);
    const xlm0 = await w.bal(w.xlm, e);
    // 1. Eve issues EVE and deploys its Stellar Asset Contract (anyone may).
    const eveAsset = new Asset("EVE", e);
    const own = eveAsset.contractId(w.node.networkPassphrase);
    const account = await w.server.getAccount(e);
    const deploySac = new TransactionBuilder(account, {
      fee: "1000",
      networkPassphrase: w.node.networkPassphrase,
    }).addOperation(Operation.createStellarAssetContract({ asset: eveAsset }))
      .setTimeout(300).build();
    const prepared = await w.server.prepareTransaction(deploySac);
    prepared.sign(w.eve);
    const done = await sendOk(w.server, prepared, "EVE's SAC deployment");
    fees += done.feeCharged ?? 0n;
    // 2. She creates [XLM, EVE] and [EVE, USDC] on the LISTED router's factory: permissionless,
    //    as on Soroswap (the factory deploys each pair itself).
    const factory = await w.client(w.factory, w.eve);
    const pairA = await signed<string>(
      await factory.create_pair({ token_a: w.xlm, token_b: own }, T),
    );
    const pairB = await signed<string>(
      await factory.create_pair({ token_a: own, token_b: w.usdc }, T),
    );
    assert.equal(ok(await factory.get_pair({ token_a: own, token_b: w.xlm }, T)), pairA);
    assert.equal(ok(await factory.get_pair({ token_a: w.usdc, token_b: own }, T)), pairB);
    expectErr203(await factory.create_pair({ token_a: own, token_b: w.xlm }, T));
    // 3. Liquidity priced so the path pays just above the old floor for the whole lot: 10 XLM
    //    against e1 EVE, and 20,000 EVE against 20,000 USDC (she holds ~99,900 USDC).
    const x1 = 10n * USDC;
    const e2 = 20_000n * USDC;
    const u2 = 20_000n * USDC;
    const out = (e1: bigint) => getAmountOut(getAmountOut(lot, x1, e1), e2, u2);
    let [lo, hi] = [1n, e2];
    while (lo < hi) {
      const mid = (lo + hi) / 2n;
      if (out(mid) >= (floor * 1_003n) / 1_000n) hi = mid;
      else lo = mid + 1n;
    }
    const e1 = lo;
    const router = await w.client(w.router, w.eve);
    const add = async (a: string, b: string, da: bigint, db: bigint) =>
      await signed(
        await router.add_liquidity({
          token_a: a,
          token_b: b,
          amount_a_desired: da,
          amount_b_desired: db,
          amount_a_min: 0n,
          amount_b_min: 0n,
          to: e,
          deadline: deadline(),
        }, T),
      );
    await add(w.xlm, own, x1, e1);
    await add(own, w.usdc, e2, u2);

    // 4. The skim: the lot through her pairs, min_out 0.
    const books = async () => ({
      state: await w.state(),
      vault: await w.bal(w.usdc, w.vault),
      pairs: [await w.bal(w.xlm, pairA), await w.bal(w.usdc, pairB)],
      eve: [await w.bal(w.usdc, e), await w.bal(w.xlm, e)],
    });
    const before = await books();
    const skim: PlanLeg = {
      amountIn: 1n,
      kind: 0,
      minOut: 0n,
      path: [w.xlm, own, w.usdc],
      router: w.router,
    };
    const attack = await eveFlash(w, [skim]);
    const refused = rpc.Api.isSimulationError(attack.simulation!);
    const mark = w.node.snapshot();
    let attacked = 0n;
    if (!refused) attacked = await signed<bigint>(attack); // (contracts without the hop check)
    const afterAttempt = await books();
    // 5. She unwinds: removes both positions and sells whatever XLM she gained on the real pair.
    const remove = async (a: string, b: string, pair: string) => {
      const lp = await w.node.view<bigint>(pair, "balance", { id: e });
      await signed(
        await router.remove_liquidity({
          token_a: a,
          token_b: b,
          liquidity: lp,
          amount_a_min: 0n,
          amount_b_min: 0n,
          to: e,
          deadline: deadline(),
        }, T),
      );
    };
    await remove(w.xlm, own, pairA);
    await remove(own, w.usdc, pairB);
    const xlmGained = (await w.bal(w.xlm, e)) - xlm0 + fees;
    if (xlmGained > 0n) {
      await signed(
        await router.swap_exact_tokens_for_tokens({
          amount_in: xlmGained,
          amount_out_min: 0n,
          path: [w.xlm, w.usdc],
          to: e,
          deadline: deadline(),
        }, T),
      );
    }
    const eveGain = (await w.bal(w.usdc, e)) - usdc0;
    w.node.revert(mark);

    // 6. The honest direct plan on the same auction.
    const honest = await w.sendFee<bigint>(await eveFlash(w, [xlmLeg(w, 1n, 0n)]));
    console.log(
      `ATTACK a multi-hop skim: lot ${fmt(lot)} XLM, old floor ${fmt(floor)} USDC; path ` +
        `[XLM, EVE, USDC] ${refused ? "refused (NotAllowed)" : "SETTLED"}; depositors' profit ` +
        `attacked ${fmt(attacked)} vs honest ${fmt(honest.result)} USDC; attacker gain ` +
        `${fmt(eveGain)} USDC (${eveGain} units; XLM ${xlmGained} units, fees apart: her pairs' ` +
        `locked minimum liquidity)`,
    );
    assert.ok(refused, "the skim path must be refused");
    expectErr(attack, "NotAllowed");
    assert.deepEqual(afterAttempt, before, "nothing moved");
    assert.ok(eveGain <= 0n, `attacker +0 (got ${eveGain})`);
    assert.ok(honest.result > 0n);
    const after = await w.state();
    assert.equal(after.total_usdc, before.state.total_usdc + honest.result);
    assert.equal(after.total_profit, before.state.total_profit + honest.result);
  } finally {
    await w.close();
  }
});

/** Asserts a simulated call failed with the Soroswap factory's CreatePairAlreadyExists (203). */
// deno-lint-ignore no-explicit-any
function expectErr203(tx: { simulation?: any }): void {
  assert.ok(rpc.Api.isSimulationError(tx.simulation), "create_pair twice must fail");
  assert.match(tx.simulation.error, /Error\(Contract, #203\)/);
}

Deno.test("ATTACK b (real Blend auction): the admin's policy listing its own executor is queued; its flashes fail until applies_at; it cannot shorten the delay at once; cancel works; depositors see it and leave first with their full value", async () => {
  const w = await startMarketWorld();
  try {
    // The admin also runs a keeper, with its own executor: a copy of working code that would run
    // the liquidation, repay exactly the loan and leave the lot (the profit) with the admin.
    const own = await deployFixture(w.node, "scripted_executor");
    const adminKeeper = await w.account(200n * USDC);
    const ak = adminKeeper.publicKey();
    await w.sendFee(
      await (await w.client(w.registry, adminKeeper)).register({ operator: ak, name: "adm" }, T),
    );
    await openAuction(w);
    const admin = await w.client(w.vault, w.admin);
    const take = script({
      op: "call",
      contract: w.pool,
      fn: "submit",
      args: [addr(ak), addr(ak), addr(ak), requestsScVal(honestRequests(w, AMOUNT, w.borrower))],
    }, { op: "repay_all" });
    const adminFlash = async () =>
      await (await w.client(w.vault, adminKeeper)).flash({
        keeper: ak,
        executor: own,
        amount: AMOUNT,
        data: take,
        response_time_ms: 0n,
      }, T);
    const p0 = await w.policy();
    const cfg = ok<Record<string, bigint>>(await admin.get_config(T));
    const delay = cfg.policy_delay;
    assert.equal(delay, 72n * 3_600n);
    const grab = { ...p0, executors: [...p0.executors, own] };
    // 1. Queued, not in force: the admin's flash is refused.
    await w.sendFee(await admin.set_flash_policy({ policy: grab }, T));
    expectErr(await adminFlash(), "ExecutorNotAllowed");
    // 2. It cannot shorten the delay at once: a lower policy_delay is queued too.
    await w.sendFee(
      await admin.set_config({
        config: { ...cfg, policy_delay: cfg.withdraw_cooldown + 3_600n },
      }, T),
    );
    assert.equal(ok<Record<string, bigint>>(await admin.get_config(T)).policy_delay, delay);
    assert.equal(
      ok<{ applies_at: bigint }>(await admin.get_pending_config(T)).applies_at,
      w.now() + delay,
    );
    // 3. cancel_pending drops both; the admin queues the policy again (the race starts now).
    await w.sendFee(await admin.cancel_pending(T));
    assert.equal(ok(await admin.get_pending_flash_policy(T)) ?? null, null);
    assert.equal(ok(await admin.get_pending_config(T)) ?? null, null);
    await w.sendFee(await admin.set_flash_policy({ policy: grab }, T));
    // 4. Depositors watch get_pending_flash_policy: what, and from when.
    const alice = await w.client(w.vault, w.depositor);
    const pending = ok<{ applies_at: bigint; policy: unknown }>(
      await alice.get_pending_flash_policy(T),
    );
    assert.deepEqual(pending.policy, grab);
    const appliesAt = pending.applies_at;
    assert.equal(appliesAt, w.now() + delay);
    // 5. Meanwhile an honest keeper fills the auction through the liquidator: depositors' profit.
    const { result: profit } = await w.sendFee<bigint>(await eveFlash(w, [xlmLeg(w, 1n, 0n)]));
    assert.ok(profit > 0n);
    expectErr(await adminFlash(), "ExecutorNotAllowed");
    // 6. Alice waits for the profit to unlock (1 day < 72 h) and leaves before applies_at with
    //    her full value: her shares' cooldown (1 h) is far shorter than the delay.
    const st = await w.state();
    await advanceTo(w, st.unlock_end);
    assert.ok(w.now() + 1n < appliesAt);
    const dep = ok<Record<string, bigint>>(
      await alice.get_depositor({ depositor: w.depositor.publicKey() }, T),
    );
    const value = await w.depositorValue(w.depositor.publicKey());
    const { result: paid } = await w.sendFee<bigint>(
      await alice.withdraw({ depositor: w.depositor.publicKey(), shares: dep.shares }, T),
    );
    const margin = appliesAt - w.now();
    assert.equal(paid, value.usdc_value, "her full value");
    // (less the locked minimum liquidity's share: 1,000 units of shares stay in the vault)
    assert.ok(paid >= 50_000n * USDC + profit - USDC, `paid ${paid}: deposit + the whole profit`);
    // 7. One second before applies_at the admin's executor is still refused; from applies_at it
    //    is listed, but the depositors are gone: nothing to lend.
    await advanceTo(w, appliesAt - 2n);
    expectErr(await adminFlash(), "ExecutorNotAllowed");
    await advanceTo(w, appliesAt - 1n);
    expectErr(await adminFlash(), "InsufficientLiquidity");
    const left = await w.state();
    console.log(
      `ATTACK b admin policy race: own executor queued until +${delay} s; admin gain 0; honest ` +
        `profit ${fmt(profit)} USDC went to the depositor, who withdrew ${fmt(paid)} USDC ` +
        `(50,000 + profit) ${margin} s before the change applied; vault left with ` +
        `${left.total_usdc} units`,
    );
    assert.ok(left.total_usdc < AMOUNT);
  } finally {
    await w.close();
  }
});

Deno.test("ATTACK c (real Blend auction): a just-in-time deposit of 450,000 USDC around a profitable fill earns at most its pro-rata profit x cooldown / profit_unlock_secs; the long-standing depositor keeps the rest", async () => {
  const w = await startMarketWorld();
  try {
    await openAuction(w);
    const alice = w.depositor.publicKey();
    const alice0 = await w.depositorValue(alice);
    const jit: Keypair = await w.account(450_000n * USDC);
    const j = jit.publicKey();
    const jv = await w.client(w.vault, jit);
    const deposit = 450_000n * USDC;
    const { result: shares } = await w.sendFee<bigint>(
      await jv.deposit({ depositor: j, amount: deposit }, T),
    );
    const st0 = await w.state();
    const { result: profit } = await w.sendFee<bigint>(await eveFlash(w, [xlmLeg(w, 1n, 0n)]));
    const st1 = await w.state();
    const flashAt = st1.unlock_end - DAY;
    // The JIT depositor leaves the moment its cooldown ends.
    const rec = ok<Record<string, bigint>>(await jv.get_depositor({ depositor: j }, T));
    await advanceTo(w, rec.unlock_at - 1n);
    const { result: out } = await w.sendFee<bigint>(await jv.withdraw({ depositor: j, shares }, T));
    const gain = out - deposit;
    const proRata = (profit * shares) / st0.total_shares;
    const exposed = w.now() - flashAt;
    const bound = (proRata * 3_600n) / DAY + 1n;
    // After the full unlock, alice holds the rest.
    await advanceTo(w, st1.unlock_end);
    const aliceGain = (await w.depositorValue(alice)).usdc_value - alice0.usdc_value;
    console.log(
      `ATTACK c JIT: 450,000 USDC in before a ${fmt(profit)} USDC fill, out after ${exposed} s: ` +
        `gain ${fmt(gain)} USDC = ${((Number(gain) / Number(proRata)) * 100).toFixed(2)} % of ` +
        `its pro-rata ${fmt(proRata)} (bound ${fmt(bound)}); alice (50,000) kept ` +
        `${fmt(aliceGain)} USDC`,
    );
    assert.ok(exposed <= 3_600n);
    assert.ok(gain >= 0n && gain <= bound, `JIT gain ${gain} > bound ${bound}`);
    assert.ok(gain <= (proRata * exposed) / DAY + 1n);
    assert.ok(aliceGain >= profit - gain - 1n * USDC, `alice kept ${aliceGain}`);
    assert.ok(aliceGain <= profit - gain);
  } finally {
    await w.close();
  }
});

Deno.test("ATTACK d (market): 1-unit empty-plan flashes through the liquidator are executions, not fills; profit 0", async () => {
  const w = await startMarketWorld();
  try {
    const e = w.eve.publicKey();
    const ev = await w.client(w.vault, w.eve);
    const kr = await w.client(w.registry, w.eve);
    const info = async () => ok<Record<string, bigint>>(await kr.get_keeper({ operator: e }, T));
    const before = await info();
    const st0 = await w.state();
    let fees = 0n;
    const n = 5;
    for (let i = 0; i < n; i++) {
      const { result, fee } = await w.sendFee<bigint>(
        await ev.flash({
          keeper: e,
          executor: w.liquidator,
          amount: 1n,
          data: planScVal(w.pool, [], []),
          response_time_ms: 1n,
        }, T),
      );
      assert.equal(result, 0n);
      fees += fee;
    }
    const after = await info();
    console.log(
      `ATTACK d dust flashes: ${n} x 1-unit empty plan cost ${fees} stroops; successful_fills ` +
        `${before.successful_fills} -> ${after.successful_fills}, total_executions ` +
        `${before.total_executions} -> ${after.total_executions}, total_profit +` +
        `${after.total_profit - before.total_profit}`,
    );
    assert.equal(after.successful_fills, before.successful_fills, "no fill counted");
    assert.equal(after.total_executions, before.total_executions + BigInt(n));
    assert.equal(after.total_profit, before.total_profit);
    assert.equal(after.response_count, before.response_count);
    assert.deepEqual(await w.state(), st0, "books unchanged");
  } finally {
    await w.close();
  }
});
