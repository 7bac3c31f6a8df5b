/**
 * The vault's linear profit unlock over JSON-RPC, to the unit: `locked_profit` and `unlock_end`
 * in `get_state`, `balance().usdc_value`, deposit minting and withdrawal payouts priced with the
 * unlocked capital, and two overlapping profits unlocking together over the full unlock time; then
 * `min_fill_profit`: a flash below it books its profit but is no fill.
 *
 * Every transaction is sent at a chosen ledger time (`at`): the fixture moved ledger time ahead of
 * the wall clock, so after `advanceTo(t - 1)` the next ledger closes at exactly `t`. A read
 * simulates at the next ledger's time (latest close + 1).
 */
import assert from "node:assert/strict";
import { MIN_LIQUIDITY } from "./spec.ts";
import {
  flashArgs,
  ok,
  send,
  TX_OPTS,
  USDC,
  type VigilFixture,
  withVigil,
} from "@vigil/testing/contracts/vigil_fixture";

const T = TX_OPTS;
/** profit_unlock_secs of these tests. */
const UNLOCK = 10_000n;

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** The vault's ProfitLock, as the test models it. */
interface Lock {
  amount: bigint;
  from: bigint;
  until: bigint;
}

/** locked(t) = ceil(amount · (until − t) / (until − from)) before `until`, else 0. */
function lockedAt(l: Lock, t: bigint): bigint {
  if (t >= l.until || l.amount === 0n) return 0n;
  return ceilDiv(l.amount * (l.until - t), l.until - l.from);
}

/**
 * A new profit `p` at `now` on top of `l`: what is still locked and `p` together, until
 * max(the old end, now + UNLOCK).
 */
function addProfit(l: Lock, p: bigint, now: bigint): Lock {
  const end = now + UNLOCK;
  return { amount: lockedAt(l, now) + p, from: now, until: l.until > end ? l.until : end };
}

/** Runs `send` so that its transaction lands at ledger time `t` (asserted). */
async function at<R>(f: VigilFixture, t: bigint, run: () => Promise<R>): Promise<R> {
  await f.advanceTo(t - 1n);
  assert.equal(f.now(), t - 1n, `ledger time already past ${t}`);
  const r = await run();
  assert.equal(f.now(), t, "the transaction landed in the next ledger");
  return r;
}

/** Reads at ledger time `t` (the next ledger after t − 1). */
async function readAt<R>(f: VigilFixture, t: bigint, read: () => Promise<R>): Promise<R> {
  await f.advanceTo(t - 1n);
  assert.equal(f.now(), t - 1n);
  return await read();
}

Deno.test("profit unlock: exact locked_profit / unlock_end, usdc_value, deposit minting and withdrawal payout with the unlocked total; two overlapping profits unlock together over the full unlock time", async () => {
  await withVigil(async (f) => {
    const alice = await f.user(20_000n * USDC);
    const bob = await f.user(20_000n * USDC);
    const kim = await f.user(100n * USDC + 3_000n * USDC);
    const [a, b, k] = [alice.publicKey(), bob.publicKey(), kim.publicKey()];
    const av = await f.client(f.vault, alice);
    const bv = await f.client(f.vault, bob);
    const kv = await f.client(f.vault, kim);
    await send(await (await f.client(f.registry, kim)).register({ operator: k, name: "kim" }, T));
    const state = async () => ok<Record<string, bigint>>(await av.get_state(T));
    const value = async (who: string) =>
      ok<{ shares: bigint; usdc_value: bigint }>(await av.balance({ depositor: who }, T));
    const flash = async (p: bigint) =>
      await send<bigint>(
        await kv.flash(
          flashArgs(f, k, 100n * USDC, [{ op: "pay", to: f.vault, amount: 100n * USDC + p }]),
          T,
        ),
      );

    const t0 = f.now() + 10n;
    // Alice: 10,000 USDC at price 1 (1,000 units of shares locked in the vault's own record).
    const sharesA = await at(
      f,
      t0,
      async () => send<bigint>(await av.deposit({ depositor: a, amount: 10_000n * USDC }, T)),
    );
    assert.equal(sharesA, 10_000n * USDC - MIN_LIQUIDITY);
    let S = 10_000n * USDC;
    let total = 10_000n * USDC;

    // Profit 1: all of it locked at the flash, unlocking until t1 + 10,000 s.
    const p1 = 1_234_5678901n;
    const t1 = t0 + 100n;
    assert.equal(await at(f, t1, () => flash(p1)), p1);
    total += p1;
    let lock: Lock = { amount: p1, from: t1, until: t1 + UNLOCK };
    let st = await state(); // read at t1 + 1
    assert.equal(st.total_usdc, total);
    assert.equal(st.total_profit, p1);
    assert.equal(st.unlock_end, t1 + UNLOCK);
    assert.equal(st.locked_profit, lockedAt(lock, t1 + 1n));
    assert.equal(st.locked_profit, 1_234_4444334n, "ceil(p1 · 9,999 / 10,000)");

    // 2,500 s in: a quarter unlocked; alice's shares are worth the unlocked capital only.
    const tr = t1 + 2_500n;
    st = await readAt(f, tr, state);
    assert.equal(st.locked_profit, lockedAt(lock, tr));
    assert.equal(st.locked_profit, 925_9259176n, "ceil(p1 · 7,500 / 10,000)");
    const va = await readAt(f, tr, () => value(a));
    assert.equal(va.usdc_value, (sharesA * (total - lockedAt(lock, tr))) / S);
    assert.equal(va.usdc_value, 10_308_6418694n);

    // Bob deposits 5,000 USDC at t1 + 3,000: minted with the unlocked total (the still-locked
    // profit is not sold to him at today's price).
    const tb = t1 + 3_000n;
    const D = 5_000n * USDC;
    const sharesB = await at(
      f,
      tb,
      async () => send<bigint>(await bv.deposit({ depositor: b, amount: D }, T)),
    );
    assert.equal(sharesB, (D * S) / (total - lockedAt(lock, tb)));
    assert.equal(sharesB, 4_821_4285729n);
    S += sharesB;
    total += D;

    // Profit 2 at t1 + 6,000, while 40 % of profit 1 is still locked: one lock of both, to the
    // later of the old end (4,000 s away) and now + UNLOCK (10,000 s): no profit unlocks faster.
    const p2 = 777_7777777n;
    const t2 = t1 + 6_000n;
    const rest = lockedAt(lock, t2);
    assert.equal(rest, 493_8271561n);
    // The share price at t2 is the same just before and just after: U = total − locked.
    const uBefore = total - rest;
    assert.equal(await at(f, t2, () => flash(p2)), p2);
    total += p2;
    lock = addProfit(lock, p2, t2);
    assert.equal(lock.amount, rest + p2);
    assert.equal(lock.until - t2, UNLOCK);
    assert.equal(total - lockedAt(lock, t2), uBefore, "no jump in the share price at the flash");
    st = await state(); // at t2 + 1
    assert.equal(st.unlock_end, lock.until);
    assert.equal(st.locked_profit, lockedAt(lock, t2 + 1n));
    assert.equal(st.total_profit, p1 + p2);
    assert.equal(st.total_usdc, total);

    // Alice withdraws half her shares at t2 + 1,000: paid with the unlocked total.
    const tw = t2 + 1_000n;
    const half = sharesA / 2n;
    const paid = await at(
      f,
      tw,
      async () => send<bigint>(await av.withdraw({ depositor: a, shares: half }, T)),
    );
    assert.equal(paid, (half * (total - lockedAt(lock, tw))) / S);
    assert.equal(paid, 5_353_0268659n);
    S -= half;
    total -= paid;
    // Bob's value at the same time, through balance().
    const vb = await readAt(f, tw + 1n, () => value(b));
    assert.equal(vb.usdc_value, (sharesB * (total - lockedAt(lock, tw + 1n))) / S);

    // Fully unlocked: nothing locked, unlock_end 0, every share priced with the whole capital.
    st = await readAt(f, lock.until, state);
    assert.equal(st.locked_profit, 0n);
    assert.equal(st.unlock_end, 0n);
    const vEnd = await readAt(f, lock.until, () => value(b));
    assert.equal(vEnd.usdc_value, (sharesB * total) / S);
    const out = await at(
      f,
      lock.until + 5n,
      async () => send<bigint>(await bv.withdraw({ depositor: b, shares: sharesB }, T)),
    );
    assert.equal(out, (sharesB * total) / S);
    console.log(
      `profit unlock: p1 ${p1}, p2 ${p2}: bob minted ${sharesB} shares for ${D} units at ` +
        `t1+3,000, alice's half paid ${paid}, combined lock ${lock.amount} units until t2+` +
        `${lock.until - t2} s, bob out ${out} (gain ${out - D})`,
    );
  }, { profit_unlock_secs: UNLOCK });
});

Deno.test("min_fill_profit: a flash below it books its profit (depositors get it) but is not a successful fill; at it, it is; 0 makes every settled flash a fill", async () => {
  await withVigil(async (f) => {
    const alice = await f.user(10_000n * USDC);
    await send(
      await (await f.client(f.vault, alice)).deposit({
        depositor: alice.publicKey(),
        amount: 10_000n * USDC,
      }, T),
    );
    const kim = await f.user(200n * USDC);
    const k = kim.publicKey();
    const kr = await f.client(f.registry, kim);
    const kv = await f.client(f.vault, kim);
    await send(await kr.register({ operator: k, name: "kim" }, T));
    const flash = async (p: bigint) =>
      await send<bigint>(
        await kv.flash(
          flashArgs(f, k, 10n * USDC, [{ op: "pay", to: f.vault, amount: 10n * USDC + p }], 5n),
          T,
        ),
      );
    const info = async () => ok<Record<string, bigint>>(await kr.get_keeper({ operator: k }, T));
    const min = 5n * USDC;
    assert.equal(await flash(min - 1n), min - 1n);
    let i = await info();
    assert.deepEqual([i.total_executions, i.successful_fills, i.total_profit], [1n, 0n, min - 1n]);
    const st = ok<Record<string, bigint>>(await kv.get_state(T));
    assert.equal(st.total_profit, min - 1n, "the depositors have the profit");
    assert.equal(await flash(min), min);
    i = await info();
    assert.deepEqual([i.total_executions, i.successful_fills, i.response_count], [2n, 1n, 1n]);
    // min_fill_profit 0 (a queued config change): a zero-profit flash is a fill.
    const admin = await f.client(f.vault, f.admin);
    const cfg = ok<Record<string, bigint>>(await admin.get_config(T));
    await send(await admin.set_config({ config: { ...cfg, min_fill_profit: 0n } }, T));
    assert.equal(await flash(0n), 0n);
    assert.equal((await info()).successful_fills, 1n, "not yet in force");
    await f.advanceTime(Number(cfg.policy_delay));
    assert.equal(await flash(0n), 0n);
    i = await info();
    assert.deepEqual([i.total_executions, i.successful_fills], [4n, 2n]);
  }, { min_fill_profit: 5n * USDC });
});
