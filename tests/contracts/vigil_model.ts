/**
 * Model-based property testing of the vault + registry pair after issue 12 (flash loans).
 *
 * A random sequence of operations (deposits, withdrawals, flashes by any party — registered
 * keepers and depositors alike — whose executor repays with profit, exactly, short, nothing, or
 * tries to re-enter the vault, through the listed executor or one the admin never listed;
 * (de)registrations, admin changes of min_stake and of the flash policy (listing or de-listing
 * the executor, out-of-bounds policies) and time moves) runs
 * against the real contracts through a {@link VigilChain} (the local node's in-process `invoke`,
 * auth mocked; the auth-dependent attacks run over JSON-RPC in `attack_test.ts`). Before each
 * operation an independent model predicts its outcome (success and return value, or the exact
 * typed error, or a host error for re-entry); after each operation the chain's state is compared
 * with the model and the invariants are checked:
 * - the vault's USDC token balance (read from the SAC) equals total_usdc, and active_liq = 0;
 * - get_total_loss() = 0: there is no loss path;
 * - the sum of depositor shares (including the locked minimum liquidity) equals total_shares;
 * - a withdrawal pays at most the pro-rata value of the shares burnt; while no profit was ever
 *   booked, no depositor ever got out more than they put in;
 * - **the share price total_usdc/total_shares never falls, after any operation by anyone**;
 * - no party gains from the vault: every keeper's USDC balance is exactly what it was given,
 *   less the stake it holds in the registry, less the profit its flashes paid to depositors;
 * - the registry holds exactly the stakes of its keepers, and its counters count exactly the
 *   settled flashes;
 * - the vault's flash policy is exactly what the admin last set successfully; a flash through an
 *   executor not in it is `ExecutorNotAllowed` (and moves nothing).
 *
 * @module
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import { VigilError } from "../../contracts/registry/errors.ts";
import type { KeeperInfo } from "../../contracts/registry/spec.ts";
import {
  type Depositor,
  type DepositorBalance,
  type FlashPolicy,
  MIN_LIQUIDITY,
  type VaultState,
} from "../../contracts/vault/spec.ts";
import { TESTNET_LIMITS, USDC } from "../../contracts/deploy.ts";
import { script, type Step } from "../fixtures/scripted_executor.ts";
import { addr, i128 } from "../../contracts/sdk.ts";
import { planScVal } from "./market_world.ts";

/** What the property tests need from a chain with a freshly deployed vault and registry. */
export interface VigilChain {
  vault: string;
  registry: string;
  /** The scriptable test executor (`tests/fixtures/scripted_executor.ts`). */
  executor: string;
  /** Vigil's liquidator (always in the policy's executors). */
  liquidator: string;
  /** Another copy of the scriptable executor that the admin never lists. */
  rogue: string;
  /** A fake lending pool (`takingPool`) the policy lists, for liquidator flashes. */
  pool: string;
  usdc: string;
  depositors: string[];
  keepers: string[];
  /** Runs a contract function with all auth mocked; throws with "Error(Contract, #N)" on failure. */
  invoke<R = unknown>(contractId: string, fn: string, args?: Record<string, unknown>): Promise<R>;
  /** Read-only call. */
  view<R = unknown>(contractId: string, fn: string, args?: Record<string, unknown>): Promise<R>;
  /** The USDC SAC balance of an address. */
  balance(address: string): Promise<bigint>;
  /** Mints USDC to an address (the issuer acting). */
  mint(address: string, amount: bigint): Promise<void>;
  /** Moves ledger time forward. */
  advanceTime(seconds: number): Promise<void>;
  /** Best estimate of the timestamp the next invocation sees. */
  now(): Promise<bigint>;
  /** The sequence of the ledger the next invocation runs in. */
  ledger(): Promise<number>;
}

/** What a flash's executor does with the loan. */
export type FlashKind =
  | "profit"
  | "exact"
  | "short"
  | "none"
  | "reenter"
  /** Through Vigil's liquidator with an empty plan on the listed fake pool: repays exactly. */
  | "liq"
  /** Through the liquidator, a plan whose fill costs 1 unit and produces nothing: short. */
  | "liq_loss";

/** One operation of a random sequence. */
export type Op =
  | { t: "deposit"; who: number; amount: bigint }
  | { t: "withdraw"; who: number; bps: number; extra: bigint }
  | {
    t: "flash";
    /** Index into keepers, then depositors (any party may try). */
    who: number;
    bps: number;
    abs: bigint | null;
    kind: FlashKind;
    x: bigint;
    /** Through the admin-never-listed copy of the executor. */
    rogue: boolean;
  }
  | { t: "policy"; list: boolean; bad: "none" | "slippage" | "entries" }
  | { t: "register"; who: number }
  | { t: "deregister"; who: number }
  | { t: "min_stake"; high: boolean }
  | { t: "time"; seconds: number };

const bigAmount = fc.oneof(
  fc.bigInt({ min: 0n, max: 2_000n }), // dust: minimum liquidity, zero shares
  fc.bigInt({ min: 1n, max: 1_000n * USDC }),
  fc.bigInt({ min: 1n, max: 4_000_000n * USDC }), // reaches the 10M deposit cap
);
/** Arbitrary for one operation over `nd` depositors and `nk` keepers. */
export function opArb(nd: number, nk: number): fc.Arbitrary<Op> {
  const d = fc.integer({ min: 0, max: nd - 1 });
  const k = fc.integer({ min: 0, max: nk - 1 });
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({ t: fc.constant("deposit" as const), who: d, amount: bigAmount }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        t: fc.constant("withdraw" as const),
        who: d,
        bps: fc.oneof(fc.constant(10_000), fc.integer({ min: 0, max: 10_000 })),
        extra: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n })),
      }),
    },
    {
      weight: 8,
      arbitrary: fc.record({
        t: fc.constant("flash" as const),
        // Mostly a keeper, sometimes a depositor (not registered).
        who: fc.oneof(
          { weight: 4, arbitrary: k },
          { weight: 1, arbitrary: fc.integer({ min: nk, max: nk + nd - 1 }) },
        ),
        // Mostly a fraction of the vault's capital, sometimes an absolute amount (0, dust, or
        // above the per-flash cap or the pool).
        bps: fc.integer({ min: 0, max: 11_000 }),
        abs: fc.option(
          fc.oneof(fc.bigInt({ min: -2n, max: 100n }), fc.bigInt({ min: 1n, max: 20_000n * USDC })),
          { freq: 4 },
        ),
        kind: fc.constantFrom(
          "profit" as const,
          "profit" as const,
          "exact" as const,
          "short" as const,
          "none" as const,
          "reenter" as const,
          "liq" as const,
          "liq_loss" as const,
        ),
        x: fc.oneof(fc.bigInt({ min: 0n, max: 10n }), fc.bigInt({ min: 0n, max: 500n * USDC })),
        rogue: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, {
          weight: 1,
          arbitrary: fc.constant(true),
        }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant("policy" as const),
        // Mostly listing the executor again, sometimes de-listing it or an invalid policy.
        list: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, {
          weight: 1,
          arbitrary: fc.constant(false),
        }),
        bad: fc.constantFrom(
          "none" as const,
          "none" as const,
          "slippage" as const,
          "entries" as const,
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("register" as const), who: k }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("deregister" as const), who: k }) },
    {
      weight: 1,
      arbitrary: fc.record({ t: fc.constant("min_stake" as const), high: fc.boolean() }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        t: fc.constant("time" as const),
        seconds: fc.oneof(
          fc.integer({ min: 1, max: 120 }),
          fc.integer({ min: 600, max: 4000 }),
        ),
      }),
    },
  );
}

interface MDep {
  shares: bigint;
  locked: bigint;
  unlockAt: bigint;
  deposited: bigint;
  withdrawn: bigint;
}
interface MKeeper {
  stake: bigint;
  fills: bigint;
  profit: bigint;
}

/** Outcome: a value, a typed error code, or a host error (code undefined). */
type Outcome = { ok: true; value?: bigint } | { ok: false; code: number | undefined };

/** Seconds around a time boundary within which the model accepts either outcome. */
const TIME_SLACK = 5n;

const E = VigilError;

function errCode(e: unknown): number | undefined {
  const m = /Error\(Contract, #(\d+)\)/.exec(String((e as Error)?.message ?? e));
  return m ? Number(m[1]) : undefined;
}

/** The executor script for a flash of `amount` by `keeper`. */
export function flashScript(
  vault: string,
  keeper: string,
  amount: bigint,
  kind: FlashKind,
  x: bigint,
): ReturnType<typeof script> {
  const steps: Step[] = kind === "profit"
    ? [{ op: "pay", to: vault, amount: amount + x + 1n }]
    : kind === "exact"
    ? [{ op: "repay_all" }]
    : kind === "short"
    ? [{ op: "pay", to: vault, amount: amount - 1n - (x % (amount > 0n ? amount : 1n)) }]
    : kind === "none"
    ? []
    : [
      // Re-entry: turn the loan into shares, then repay. The host refuses the call.
      { op: "call", contract: vault, fn: "deposit", args: [addr(keeper), i128(amount)] },
      { op: "repay_all" },
    ];
  return script(...steps.filter((st) => st.op !== "pay" || st.amount > 0n));
}

/** The model plus the runner of one sequence. */
export class VigilModel {
  U = 0n;
  S = 0n;
  P = 0n;
  everProfit = false;
  deps = new Map<string, MDep>();
  ownShares = 0n;
  keepers = new Map<string, MKeeper>();
  /** USDC each keeper was given (mints), stakes and profits aside: its net must stay ≤ 0. */
  given = new Map<string, bigint>();
  paidProfit = new Map<string, bigint>();
  minStake: bigint = TESTNET_LIMITS.min_stake;
  readonly cfg = TESTNET_LIMITS;
  /** The flash policy's executors as the admin last set them. */
  executors: string[] = [];
  /** Statistics, to show the sequences exercise every path. */
  static stats: Record<string, number> = {};

  constructor(readonly c: VigilChain) {}

  private count(k: string) {
    VigilModel.stats[k] = (VigilModel.stats[k] ?? 0) + 1;
  }

  /** The policy the admin sets: Vigil's liquidator, plus the test executor when `list`. */
  policyFor(list: boolean): FlashPolicy {
    return {
      executors: list ? [this.c.liquidator, this.c.executor] : [this.c.liquidator],
      max_slippage_bps: 300,
      pools: [this.c.pool],
      routers: [],
    };
  }

  /**
   * Lists the test executor in the flash policy (the deployment lists only the liquidator), then
   * registers the initial keepers and records what each keeper already holds.
   */
  async init(): Promise<void> {
    this.executors = (await this.c.view<FlashPolicy>(this.c.vault, "get_flash_policy")).executors;
    assert.deepEqual(this.executors, [this.c.liquidator], "deployed policy: the liquidator only");
    for (const k of this.c.keepers) this.given.set(k, await this.c.balance(k));
    await this.step({ t: "policy", list: true, bad: "none" });
    for (const k of this.c.keepers) {
      await this.step({ t: "register", who: this.c.keepers.indexOf(k) });
    }
  }

  private dep(a: string): MDep {
    let d = this.deps.get(a);
    if (!d) {
      d = { shares: 0n, locked: 0n, unlockAt: 0n, deposited: 0n, withdrawn: 0n };
      this.deps.set(a, d);
    }
    return d;
  }

  private async give(who: string, amount: bigint): Promise<void> {
    if (amount <= 0n) return;
    await this.c.mint(who, amount);
    if (this.given.has(who)) this.given.set(who, this.given.get(who)! + amount);
  }

  /** Runs one op: predicts, executes, compares, checks invariants. */
  async step(op: Op): Promise<void> {
    const c = this.c;
    const before = { U: this.U, S: this.S };
    if (op.t === "time") {
      await c.advanceTime(op.seconds);
      this.count("time");
      await this.check(before);
      return;
    }
    const now = await c.now();
    /** Acceptable outcomes (two only near a time boundary, where the clock decides). */
    let expect: Outcome[] = [];
    let run: () => Promise<unknown> = () => Promise.resolve();
    let apply: (value: unknown) => void = () => {};
    const err = (code: number | undefined): Outcome => ({ ok: false, code });

    switch (op.t) {
      case "deposit": {
        const who = c.depositors[op.who];
        const a = op.amount;
        let minted = 0n;
        if (a <= 0n) expect = [err(E.InvalidAmount)];
        else if (this.U + a > this.cfg.deposit_cap) expect = [err(E.DepositCapExceeded)];
        else if (this.S === 0n) {
          minted = a - MIN_LIQUIDITY;
          expect = [minted <= 0n ? err(E.ZeroShares) : { ok: true, value: minted }];
        } else if (this.U === 0n) expect = [err(E.PoolInsolvent)];
        else {
          minted = (a * this.S) / this.U;
          expect = [minted === 0n ? err(E.ZeroShares) : { ok: true, value: minted }];
        }
        run = () => c.invoke(c.vault, "deposit", { depositor: who, amount: a });
        apply = () => {
          const d = this.dep(who);
          const t = this.observedNow!;
          d.locked = t < d.unlockAt ? d.locked + minted : minted;
          d.unlockAt = t + this.cfg.withdraw_cooldown;
          d.shares += minted;
          d.deposited += a;
          if (this.S === 0n) {
            this.ownShares += MIN_LIQUIDITY;
            this.S += MIN_LIQUIDITY;
          }
          this.S += minted;
          this.U += a;
        };
        break;
      }
      case "withdraw": {
        const who = c.depositors[op.who];
        const d = this.dep(who);
        const shares = (d.shares * BigInt(op.bps)) / 10_000n + op.extra;
        const amount = this.S === 0n ? 0n : (shares * this.U) / this.S;
        const rest: Outcome = amount === 0n
          ? err(E.ZeroPayout)
          : amount > this.U
          ? err(E.InsufficientLiquidity)
          : { ok: true, value: amount };
        const lockedNow = now < d.unlockAt ? d.locked : 0n;
        const nearBoundary = d.unlockAt - now <= TIME_SLACK && now - d.unlockAt <= TIME_SLACK;
        if (shares <= 0n) expect = [err(E.InvalidAmount)];
        else if (shares > d.shares) expect = [err(E.InsufficientShares)];
        else if (nearBoundary && shares > d.shares - d.locked) {
          expect = [err(E.WithdrawCooldown), rest];
        } else if (shares > d.shares - lockedNow) expect = [err(E.WithdrawCooldown)];
        else expect = [rest];
        run = () => c.invoke(c.vault, "withdraw", { depositor: who, shares });
        apply = (v) => {
          const paid = v as bigint;
          // Pro-rata bound: the payout never exceeds the burnt shares' exact value.
          assert.ok(paid * this.S <= shares * this.U, "withdraw paid above pro-rata");
          d.shares -= shares;
          d.withdrawn += paid;
          this.S -= shares;
          this.U -= paid;
        };
        break;
      }
      case "flash": {
        const all = [...c.keepers, ...c.depositors];
        const who = all[op.who];
        const k = this.keepers.get(who);
        const a = op.abs ?? (this.U * BigInt(op.bps)) / 10_000n;
        const viaLiquidator = op.kind === "liq" || op.kind === "liq_loss";
        const executor = viaLiquidator ? c.liquidator : op.rogue ? c.rogue : c.executor;
        const profit = op.kind === "profit" ? op.x + 1n : 0n;
        if (a <= 0n) expect = [err(E.InvalidAmount)];
        // Not in the admin's policy: refused before the registry is even asked.
        else if (!this.executors.includes(executor)) expect = [err(E.ExecutorNotAllowed)];
        else if (!k) expect = [err(E.NotRegistered)];
        else if (k.stake < this.minStake) expect = [err(E.StakeBelowMinimum)];
        else if (a > this.U) expect = [err(E.InsufficientLiquidity)];
        else if (a > this.cfg.max_draw_per_keeper) expect = [err(E.DrawLimitExceeded)];
        else if (op.kind === "short" || op.kind === "none" || op.kind === "liq_loss") {
          expect = [err(E.FlashNotRepaid)];
        } else if (op.kind === "reenter") expect = [err(undefined)]; // host: re-entry refused
        else expect = [{ ok: true, value: profit }];
        // The keeper earns its profit elsewhere (the liquidation): give it that USDC first.
        if (profit > 0n) {
          const held = await c.balance(who);
          if (held < profit) await this.give(who, profit - held);
        }
        // The liquidator's in-invocation allowances must live until a ledger not yet passed
        // (time moves close many ledgers on this shared node).
        const allowanceUntil = viaLiquidator ? (await c.ledger()) + 10_000 : 0;
        run = () =>
          c.invoke(c.vault, "flash", {
            keeper: who,
            executor,
            amount: a,
            data: viaLiquidator
              ? planScVal(
                c.pool,
                op.kind === "liq_loss" ? [{ address: c.usdc, amount: 1n, type: 5 }] : [],
                [],
                allowanceUntil,
              )
              : flashScript(c.vault, who, a > 0n ? a : 0n, op.kind, op.x),
            response_time_ms: op.x % 100_000n,
          });
        apply = () => {
          this.U += profit;
          this.P += profit;
          if (profit > 0n) this.everProfit = true;
          k!.fills += 1n;
          k!.profit += profit;
          this.paidProfit.set(who, (this.paidProfit.get(who) ?? 0n) + profit);
          this.count(`flash_${op.kind}`);
        };
        break;
      }
      case "register": {
        const who = c.keepers[op.who];
        expect = [this.keepers.has(who) ? err(E.AlreadyRegistered) : { ok: true }];
        const held = await c.balance(who);
        if (held < this.minStake) await this.give(who, this.minStake - held);
        const stake = this.minStake;
        run = () => c.invoke(c.registry, "register", { operator: who, name: `keeper-${op.who}` });
        apply = () => this.keepers.set(who, { stake, fills: 0n, profit: 0n });
        break;
      }
      case "deregister": {
        const who = c.keepers[op.who];
        const k = this.keepers.get(who);
        // Nothing can be outstanding: deregistration always pays the stake back.
        expect = [k ? { ok: true, value: k.stake } : err(E.NotRegistered)];
        run = () => c.invoke(c.registry, "deregister", { operator: who });
        apply = () => this.keepers.delete(who);
        break;
      }
      case "policy": {
        const p = this.policyFor(op.list);
        const extra = Array.from({ length: 16 }, () => c.rogue);
        const sent = op.bad === "slippage"
          ? { ...p, max_slippage_bps: 10_001 }
          : op.bad === "entries"
          ? { ...p, pools: [...extra, c.liquidator] } // 17 entries
          : p;
        expect = [op.bad === "none" ? { ok: true } : err(E.InvalidConfig)];
        run = () => c.invoke(c.vault, "set_flash_policy", { policy: sent });
        apply = () => (this.executors = p.executors);
        break;
      }
      case "min_stake": {
        const v = op.high ? 150n * USDC : this.cfg.min_stake;
        expect = [{ ok: true }];
        run = () => c.invoke(c.registry, "set_config", { min_stake: v });
        apply = () => (this.minStake = v);
        break;
      }
    }

    let result: { ok: true; value: unknown } | { ok: false; code: number | undefined; e: unknown };
    try {
      result = { ok: true, value: await run() };
    } catch (e) {
      result = { ok: false, code: errCode(e), e };
    }
    this.count(`${op.t}:${result.ok ? "ok" : result.code ?? "host"}`);
    const what = JSON.stringify(op, big);
    if (result.ok) {
      const match = expect.find((o) => o.ok);
      assert.ok(match, `${what}: expected ${JSON.stringify(expect, big)}, got ok`);
      if (match.ok && match.value !== undefined) {
        assert.equal(result.value, match.value, `${what}: return value`);
      }
      this.observedNow = await this.learnNow(op, now);
      apply(result.value);
    } else {
      assert.ok(
        expect.some((o) => !o.ok && o.code === result.code),
        `${what}: expected ${JSON.stringify(expect, big)}, got ${result.e}`,
      );
    }
    await this.check(before);
  }

  /** The timestamp the last successful call saw, learnt from the records it wrote. */
  private observedNow: bigint | undefined;
  private async learnNow(op: Op, estimate: bigint): Promise<bigint> {
    const c = this.c;
    if (op.t === "deposit") {
      const who = c.depositors[op.who];
      return (await c.view<Depositor>(c.vault, "get_depositor", { depositor: who }))
        .last_deposit_at;
    }
    return estimate;
  }

  /** Compares the chain with the model and checks the invariants. */
  async check(before: { U: bigint; S: bigint }): Promise<void> {
    const c = this.c;
    const st = await c.view<VaultState>(c.vault, "get_state");
    assert.deepEqual(st, {
      total_usdc: this.U,
      total_shares: this.S,
      total_profit: this.P,
      active_liq: 0n,
    });
    assert.equal(await c.view(c.vault, "get_total_loss"), 0n, "no loss path");
    assert.deepEqual(
      (await c.view<FlashPolicy>(c.vault, "get_flash_policy")).executors,
      this.executors,
      "the flash policy is what the admin last set",
    );

    // Token balance invariant, read from the USDC SAC itself: every unit is accounted for.
    assert.equal(await c.balance(c.vault), st.total_usdc, "vault balance != total_usdc");

    // Sum of depositor shares == total_shares (the vault's own record holds the locked minimum).
    let sum = (await c.view<Depositor>(c.vault, "get_depositor", { depositor: c.vault })).shares;
    assert.equal(sum, this.ownShares);
    let values = 0n;
    for (const who of c.depositors) {
      const d = await c.view<Depositor>(c.vault, "get_depositor", { depositor: who });
      const m = this.dep(who);
      assert.equal(d.shares, m.shares, "depositor shares");
      assert.equal(d.deposited, m.deposited);
      assert.equal(d.withdrawn, m.withdrawn);
      if (d.shares > 0n) assert.equal(d.unlock_at, m.unlockAt, "unlock_at");
      sum += d.shares;
      const b = await c.view<DepositorBalance>(c.vault, "balance", { depositor: who });
      assert.equal(b.shares, d.shares);
      // Never more than the exact pro-rata share of the pool.
      assert.ok(
        b.usdc_value * st.total_shares <= b.shares * st.total_usdc || st.total_shares === 0n,
      );
      values += b.usdc_value;
      // Rounding never pays out more than was put in (while no profit was booked).
      if (!this.everProfit) {
        assert.ok(d.withdrawn + b.usdc_value <= d.deposited, "rounding paid out");
      }
    }
    assert.equal(sum, st.total_shares, "sum of shares != total_shares");
    assert.ok(values <= st.total_usdc);
    // Conservation: the books are deposits - withdrawals + profit.
    let dep = 0n, wd = 0n;
    for (const m of this.deps.values()) {
      dep += m.deposited;
      wd += m.withdrawn;
    }
    assert.equal(st.total_usdc, dep - wd + this.P, "total_usdc conservation");

    // THE property: the share price never falls, whatever anyone did.
    if (before.S > 0n && st.total_shares > 0n) {
      assert.ok(st.total_usdc * before.S >= before.U * st.total_shares, "share price fell");
    }

    // Registry: stakes held, counters = settled flashes.
    let stakes = 0n;
    for (const who of c.keepers) {
      const m = this.keepers.get(who);
      // No keeper gains from the vault: balance = given − stake held − profit paid in.
      const held = await c.balance(who);
      const expected = (this.given.get(who) ?? 0n) - (m?.stake ?? 0n) -
        (this.paidProfit.get(who) ?? 0n);
      assert.equal(held, expected, "a keeper's USDC moved other than by stake and profit paid");
      if (!m) continue;
      const k = await c.view<KeeperInfo>(c.registry, "get_keeper", { operator: who });
      assert.equal(k.stake, m.stake);
      assert.equal(k.successful_fills, m.fills, "fills = settled flashes");
      assert.equal(k.total_executions, m.fills);
      assert.equal(k.total_profit, m.profit);
      stakes += k.stake;
    }
    assert.equal(await c.balance(c.registry), stakes, "registry balance != sum of stakes");
  }
}

/** JSON.stringify replacer for bigints. */
export const big = (_k: string, v: unknown): unknown => typeof v === "bigint" ? `${v}n` : v;

/** Number of property-test cases: VIGIL_PROPERTY_RUNS, else the CI default. */
export function propertyRuns(ciDefault: number): number {
  const v = Number(Deno.env.get("VIGIL_PROPERTY_RUNS") ?? "");
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : ciDefault;
}

/** Parameters of one share-inflation (first-depositor) attack. */
export interface AttackCase {
  /** The attacker's first deposit. */
  first: bigint;
  /** What the attacker donates to inflate the share price (a flash that repays extra). */
  donation: bigint;
  /** Victims' deposits that follow. */
  victims: bigint[];
}

/** Arbitrary for {@link AttackCase}: tiny first deposits, donations up to 1M USDC. */
export const attackArb: fc.Arbitrary<AttackCase> = fc.record({
  first: fc.oneof(fc.bigInt({ min: 1n, max: 5_000n }), fc.bigInt({ min: 1n, max: 1_000n * USDC })),
  donation: fc.oneof(
    fc.bigInt({ min: 1n, max: 10_000n }),
    fc.bigInt({ min: 1n, max: 1_000_000n * USDC }),
  ),
  victims: fc.array(
    fc.oneof(fc.bigInt({ min: 1n, max: 10_000n }), fc.bigInt({ min: 1n, max: 1_000_000n * USDC })),
    { minLength: 1, maxLength: 3 },
  ),
});

/**
 * Runs the classic attack on a fresh deployment: the attacker (keeper 0, also a depositor)
 * makes the first deposit, inflates the share price with a flash of 1 unit repaid with
 * `donation` on top (the only way left to raise total_usdc without minting shares), lets the victims deposit, waits out the cooldown and withdraws everything.
 * Asserts the attacker ends with no more than it put in, and that each victim lost less than
 * one share's worth (or was refused with ZeroShares and lost nothing).
 */
export async function runInflationAttack(c: VigilChain, k: AttackCase): Promise<void> {
  const attacker = c.keepers[0];
  // The admin lists the test executor (the deployment lists only the liquidator).
  await c.invoke(c.vault, "set_flash_policy", {
    policy: {
      executors: [c.liquidator, c.executor],
      max_slippage_bps: 300,
      pools: [c.pool],
      routers: [],
    },
  });
  await c.invoke(c.registry, "register", { operator: attacker, name: "attacker" });
  const spent0 = await c.balance(attacker);
  try {
    await c.invoke(c.vault, "deposit", { depositor: attacker, amount: k.first });
  } catch (e) {
    assert.equal(errCode(e), VigilError.ZeroShares); // first deposit at or below the minimum
    return;
  }
  const held = await c.balance(attacker);
  if (held < k.donation) await c.mint(attacker, k.donation - held);
  const topUp = held < k.donation ? k.donation - held : 0n;
  await c.invoke(c.vault, "flash", {
    keeper: attacker,
    executor: c.executor,
    amount: 1n,
    data: flashScript(c.vault, attacker, 1n, "profit", k.donation - 1n),
    response_time_ms: 1n,
  });
  for (const [i, v] of k.victims.entries()) {
    const victim = c.depositors[i];
    const st = await c.view<VaultState>(c.vault, "get_state");
    try {
      await c.invoke(c.vault, "deposit", { depositor: victim, amount: v });
    } catch (e) {
      assert.ok(
        errCode(e) === VigilError.ZeroShares || errCode(e) === VigilError.DepositCapExceeded,
        String(e),
      );
      continue;
    }
    const b = await c.view<DepositorBalance>(c.vault, "balance", { depositor: victim });
    // Lost less than one share at the pre-deposit price (+1 unit for the value's own floor).
    const price = (st.total_usdc + st.total_shares - 1n) / st.total_shares;
    assert.ok(
      b.usdc_value >= v - price - 1n,
      `victim lost more than one share: ${v} -> ${b.usdc_value}`,
    );
  }
  await c.advanceTime(Number(TESTNET_LIMITS.withdraw_cooldown) + 10);
  const mine = await c.view<DepositorBalance>(c.vault, "balance", { depositor: attacker });
  let out = 0n;
  if (mine.shares > 0n) {
    const st = await c.view<VaultState>(c.vault, "get_state");
    const value = (mine.shares * st.total_usdc) / st.total_shares;
    if (value > 0n) {
      out = await c.invoke<bigint>(c.vault, "withdraw", {
        depositor: attacker,
        shares: mine.shares,
      });
    }
  }
  // Net USDC of the attacker over the attack (mints for the donation count as its spending).
  const end = await c.balance(attacker);
  const gained = end - (spent0 + topUp);
  assert.ok(gained <= 0n, `inflation attack profitable: +${gained} (out ${out})`);
}
