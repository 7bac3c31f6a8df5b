/**
 * Model-based property testing of the vault + registry pair (issue 12 flash loans, issue 20
 * depositors' yield).
 *
 * A random sequence of operations runs against the real Wasm contracts through a
 * {@link VigilChain} (the local node's in-process `invoke`, auth mocked; the auth-dependent
 * attacks run over JSON-RPC in `attack_test.ts`): deposits, withdrawals, flashes by any party —
 * registered keepers and depositors alike — whose executor repays with profit (some right at
 * `min_fill_profit`), exactly, short, nothing, or tries to re-enter the vault, through the listed
 * executor, one the admin never listed, or Vigil's liquidator; flash-policy and config changes
 * (restricting ones apply at once, others queue behind `policy_delay`; in and out of bounds),
 * `cancel_pending`, admin hand-over and renunciation on both contracts, (de)registrations of the
 * keepers and of a crowd of throwaway registrants, keeper-list pages, `min_stake` changes, time
 * moves (small, large, and exactly onto a lock's end, a queued change's `applies_at` or a
 * depositor's unlock), and just-in-time deposit → flash → withdraw rounds.
 *
 * Before each operation an independent model predicts its outcome (success and return value, the
 * exact typed error, or a host error for re-entry) with the same integer maths as the contract:
 * the profit lock locked(t) = ceil(amount·(until−t)/(until−from)), the unlock end max(old end,
 * now + profit_unlock_secs)
 * of a new profit, shares priced with total_usdc − locked(t) (floor). After each operation the
 * chain is compared with the model and the invariants are checked:
 * - get_state / get_config / get_flash_policy / the pending views / the admins equal the model;
 * - the vault's USDC token balance (read from the SAC) equals total_usdc, and active_liq = 0;
 * - locked_profit ≤ total_usdc, and it never rises except by the step's flash profit;
 * - **the share price (total_usdc − locked)/total_shares never falls, after any operation by
 *   anyone** (an exact rational comparison);
 * - the sum of depositor shares (including the locked minimum liquidity) equals total_shares;
 *   each depositor's record and `balance` are exactly the model's;
 * - no party gains from the vault: every keeper's USDC balance is exactly what it was given,
 *   less the stake it holds in the registry, less the profit its flashes paid to depositors;
 * - the registry holds exactly the stakes of its keepers; its counters are the model's
 *   (`successful_fills` only for profit ≥ min_fill_profit, `total_profit` always), and the
 *   keeper count and every `get_keepers` page equal the model's swap-removed list;
 * - a just-in-time depositor earns at most its pro-rata share of the profit that unlocked while
 *   it waited (with no older lock: share × profit × waited / profit_unlock_secs).
 *
 * @module
 */
import fc from "fast-check";
import assert from "node:assert/strict";
import { StrKey } from "@stellar/stellar-sdk";
import { VigilError } from "@vigil/contracts/registry/errors";
import type {
  Depositor,
  DepositorBalance,
  FlashPolicy,
  KeeperInfo,
  PendingConfig,
  PendingFlashPolicy,
  RegistryConfig,
  VaultConfig,
  VaultState,
} from "@vigil/contracts/clients";
import { MIN_LIQUIDITY } from "@vigil/contracts/vault/spec";
import { TESTNET_LIMITS, USDC } from "@vigil/contracts/deploy/deploy_vigil";
import { script, type Step } from "../scripted_executor.ts";
import { addr, i128 } from "@vigil/soroban/spec_dsl";
import { planScVal } from "./market_world.ts";

/** What the property tests need from a chain with a freshly deployed vault and registry. */
export interface VigilChain {
  vault: string;
  registry: string;
  /** The scriptable test executor (`testing/scripted_executor.ts`). */
  executor: string;
  /** Vigil's liquidator. */
  liquidator: string;
  /** Another copy of the scriptable executor that the admin never lists. */
  rogue: string;
  /** A fake lending pool (`taking_pool` fixture) policies list, for liquidator flashes. */
  pool: string;
  usdc: string;
  depositors: string[];
  keepers: string[];
  /** Admin candidates; `admins[0]` deployed both contracts and is their first admin. */
  admins: string[];
  /** The vault's config as deployed. */
  config: VaultConfig;
  /** Runs a contract function with all auth mocked; throws with "Error(Contract, #N)" on failure. */
  invoke<R = unknown>(contractId: string, fn: string, args?: Record<string, unknown>): Promise<R>;
  /** Read-only call. */
  view<R = unknown>(contractId: string, fn: string, args?: Record<string, unknown>): Promise<R>;
  /** The USDC SAC balance of an address. */
  balance(address: string): Promise<bigint>;
  /** Mints USDC to an address (the issuer acting). */
  mint(address: string, amount: bigint): Promise<void>;
  /** Moves ledger time forward by at least `seconds` (at least 1). */
  advanceTime(seconds: number): Promise<void>;
  /**
   * Moves time so that the next invocation runs at `target` (> now), or up to one ledger
   * interval later when the open ledger holds effects (it closes at its own time first).
   */
  advanceTo(target: bigint): Promise<void>;
  /** Exactly the timestamp the next invocation sees. */
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
  /** Through Vigil's liquidator with an empty plan on the fake pool: repays exactly. */
  | "liq"
  /** Through the liquidator, a plan whose fill costs 1 unit and produces nothing: short. */
  | "liq_loss";

/** Which config field a `config` operation changes (a choice from a per-field list). */
export type ConfigField =
  | "same"
  | "brake"
  | "cap"
  | "draw"
  | "min_fill"
  | "unlock"
  | "cooldown"
  | "cooldown_and_delay"
  | "delay";

/** One operation of a random sequence. */
export type Op =
  | { t: "deposit"; who: number; amount: bigint }
  | {
    t: "withdraw";
    who: number;
    bps: number;
    extra: bigint;
    /** An exact share count instead (the just-in-time rounds). */
    shares?: bigint;
  }
  | {
    t: "flash";
    /** Index into keepers, then depositors (any party may try). */
    who: number;
    bps: number;
    abs: bigint | null;
    kind: FlashKind;
    x: bigint;
    /** A profit right at min_fill_profit − 1, + 0 or + 1 (by x mod 3) instead of x + 1. */
    near: boolean;
    /** Self-reported response time (the registry clamps it to one hour). */
    rt: bigint;
    /** Through the admin-never-listed copy of the executor. */
    rogue: boolean;
  }
  | {
    t: "policy";
    exec: boolean;
    liq: boolean;
    pool: boolean;
    pool2: boolean;
    /** Bit masks over two spare router / hop-token addresses. */
    routers: number;
    tokens: number;
    bps: number;
    bad: "none" | "entries";
    /**
     * Instead: the policy in force minus the fake pool (bit 0), minus the test executor (bits 1
     * and 2), with bps lowered to `bps` if lower (bit 2) — a pure restriction: it applies at once.
     */
    restrict?: number | null;
  }
  | { t: "config"; field: ConfigField; pick: number }
  | { t: "cancel" }
  | {
    t: "admin";
    on: "vault" | "registry";
    act: "propose" | "accept" | "renounce";
    /** Index into the admin candidates. */
    to: number;
  }
  | { t: "register"; who: number }
  | { t: "deregister"; who: number }
  /** `n` throwaway registrants (fresh addresses, each paying min_stake). */
  | { t: "crowd"; n: number }
  /** Deregisters the registrant at list index `pick` mod the list's length. */
  | { t: "uncrowd"; pick: number }
  | { t: "page"; start: number; limit: number }
  | { t: "min_stake"; value: "default" | "high" | "zero" }
  | { t: "time"; seconds: number }
  | { t: "time_to"; target: "lock" | "policy" | "config" | "unlock"; who: number; delta: number }
  | {
    t: "jit";
    who: number;
    keeper: number;
    amount: bigint;
    profit: bigint;
    /** Withdraw at the shares' unlock, at the lock's end, or `frac`/8 of the unlock time later. */
    wait: "cooldown" | "end" | "mid";
    frac: number;
  };

/** Per-sequence deployment: the vault's time parameters, min_fill_profit, a crowd of keepers. */
export interface DeployCase {
  cooldown: bigint;
  /** policy_delay − (cooldown + 3600). */
  delayExtra: bigint;
  unlock: bigint;
  minFill: bigint;
  /** Throwaway registrants before the first operation (≥ 100 exercises several pages). */
  crowd: number;
}

/** Arbitrary for {@link DeployCase}: short delays and unlocks so time moves can cross them. */
export const deployArb: fc.Arbitrary<DeployCase> = fc.record({
  cooldown: fc.constantFrom(0n, 60n, 600n, 3600n),
  delayExtra: fc.constantFrom(0n, 1n, 600n),
  unlock: fc.constantFrom(0n, 1n, 600n, 3600n, 3600n, 14_400n, 86_400n),
  minFill: fc.constantFrom(0n, 1n, USDC, USDC),
  crowd: fc.oneof(
    { weight: 4, arbitrary: fc.constant(0) },
    { weight: 1, arbitrary: fc.integer({ min: 95, max: 125 }) },
  ),
});

/** The vault config of a {@link DeployCase} (other fields: the testnet limits). */
export function deployConfig(d: DeployCase): VaultConfig {
  return {
    deposit_cap: TESTNET_LIMITS.deposit_cap,
    max_draw_per_keeper: TESTNET_LIMITS.max_draw_per_keeper,
    min_fill_profit: d.minFill,
    policy_delay: d.cooldown + DELAY_MARGIN + d.delayExtra,
    profit_unlock_secs: d.unlock,
    withdraw_cooldown: d.cooldown,
  };
}

const bigAmount = fc.oneof(
  fc.bigInt({ min: 0n, max: 2_000n }), // dust: minimum liquidity, zero shares
  fc.bigInt({ min: 1n, max: 1_000n * USDC }),
  fc.bigInt({ min: 1n, max: 4_000_000n * USDC }), // reaches the 10M deposit cap
);
const weighted = <T>(...xs: [number, fc.Arbitrary<T>][]) =>
  fc.oneof(...xs.map(([weight, arbitrary]) => ({ weight, arbitrary })));
const often = (w: number) => weighted([w, fc.constant(true)], [1, fc.constant(false)]);

/** Arbitrary for one operation over `nd` depositors and `nk` keepers. */
export function opArb(nd: number, nk: number): fc.Arbitrary<Op> {
  const d = fc.integer({ min: 0, max: nd - 1 });
  const k = fc.integer({ min: 0, max: nk - 1 });
  return weighted<Op>(
    [10, fc.record({ t: fc.constant("deposit" as const), who: d, amount: bigAmount })],
    [
      8,
      fc.record({
        t: fc.constant("withdraw" as const),
        who: d,
        bps: fc.oneof(fc.constant(10_000), fc.integer({ min: 0, max: 10_000 })),
        extra: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n })),
      }),
    ],
    [
      16,
      fc.record({
        t: fc.constant("flash" as const),
        // Mostly a keeper, sometimes a depositor (not registered).
        who: weighted([6, k], [1, fc.integer({ min: nk, max: nk + nd - 1 })]),
        // Mostly a fraction of the vault's capital, sometimes an absolute amount (0, dust, or
        // above the per-flash cap or the pool).
        bps: fc.integer({ min: 0, max: 11_000 }),
        abs: fc.option<bigint>(
          fc.oneof(fc.bigInt({ min: -2n, max: 100n }), fc.bigInt({ min: 1n, max: 20_000n * USDC })),
          { freq: 4 },
        ),
        kind: fc.constantFrom<FlashKind>(
          "profit",
          "profit",
          "profit",
          "exact",
          "short",
          "none",
          "reenter",
          "liq",
          "liq_loss",
        ),
        x: fc.oneof(fc.bigInt({ min: 0n, max: 10n }), fc.bigInt({ min: 0n, max: 5_000n * USDC })),
        near: weighted([1, fc.constant(true)], [3, fc.constant(false)]),
        rt: fc.oneof(
          fc.bigInt({ min: 0n, max: 100_000n }),
          fc.constantFrom(3_599_999n, 3_600_000n, 3_600_001n, (1n << 64n) - 1n),
        ),
        rogue: weighted([5, fc.constant(false)], [1, fc.constant(true)]),
      }),
    ],
    [
      3,
      fc.record({
        t: fc.constant("policy" as const),
        exec: often(5),
        liq: often(8),
        pool: often(3),
        pool2: fc.boolean(),
        routers: weighted([2, fc.constant(0)], [1, fc.integer({ min: 0, max: 3 })]),
        tokens: weighted([2, fc.constant(0)], [1, fc.integer({ min: 0, max: 3 })]),
        bps: fc.constantFrom(0, 100, 300, 300, 300, 1000, 1001, 10_000),
        bad: weighted([8, fc.constant("none" as const)], [1, fc.constant("entries" as const)]),
        restrict: fc.option<number>(fc.integer({ min: 0, max: 7 }), { freq: 2 }),
      }),
    ],
    [
      3,
      fc.record({
        t: fc.constant("config" as const),
        field: fc.constantFrom<ConfigField>(
          "same",
          "brake",
          "brake",
          "cap",
          "draw",
          "min_fill",
          "min_fill",
          "unlock",
          "unlock",
          "cooldown",
          "cooldown_and_delay",
          "delay",
        ),
        pick: fc.nat(99),
      }),
    ],
    [2, fc.record({ t: fc.constant("cancel" as const) })],
    [
      2,
      fc.record({
        t: fc.constant("admin" as const),
        on: fc.constantFrom("vault" as const, "registry" as const),
        act: weighted(
          [4, fc.constant("propose" as const)],
          [4, fc.constant("accept" as const)],
          [2, fc.constant("renounce" as const)],
        ),
        to: fc.nat(2),
      }),
    ],
    [2, fc.record({ t: fc.constant("register" as const), who: k })],
    [1, fc.record({ t: fc.constant("deregister" as const), who: k })],
    [1, fc.record({ t: fc.constant("crowd" as const), n: fc.integer({ min: 1, max: 12 }) })],
    [1, fc.record({ t: fc.constant("uncrowd" as const), pick: fc.nat(1000) })],
    [
      1,
      fc.record({
        t: fc.constant("page" as const),
        start: fc.oneof(fc.nat(140), fc.constant(0xffff_ffff)),
        limit: fc.constantFrom(0, 1, 7, 99, 100, 101, 0xffff_ffff),
      }),
    ],
    [
      2,
      fc.record({
        t: fc.constant("min_stake" as const),
        value: fc.constantFrom("default" as const, "high" as const, "zero" as const),
      }),
    ],
    [
      6,
      fc.record({
        t: fc.constant("time" as const),
        seconds: weighted(
          [3, fc.integer({ min: 1, max: 120 })],
          [3, fc.integer({ min: 600, max: 4000 })],
          [1, fc.integer({ min: 4000, max: 20_000 })],
        ),
      }),
    ],
    [
      3,
      fc.record({
        t: fc.constant("time_to" as const),
        target: fc.constantFrom(
          "lock" as const,
          "lock" as const,
          "policy" as const,
          "config" as const,
          "unlock" as const,
        ),
        who: d,
        delta: fc.integer({ min: -1, max: 1 }),
      }),
    ],
    [
      2,
      fc.record({
        t: fc.constant("jit" as const),
        who: d,
        keeper: k,
        amount: fc.oneof(
          fc.bigInt({ min: 1n, max: 1_000n * USDC }),
          fc.bigInt({ min: 1n, max: 4_000_000n * USDC }),
        ),
        profit: fc.oneof(
          fc.bigInt({ min: 1n, max: 100n }),
          fc.bigInt({ min: 1n, max: 5_000n * USDC }),
        ),
        wait: fc.constantFrom("cooldown" as const, "end" as const, "mid" as const),
        frac: fc.integer({ min: 0, max: 12 }),
      }),
    ],
  );
}

interface MDep {
  shares: bigint;
  locked: bigint;
  unlockAt: bigint;
  deposited: bigint;
  withdrawn: bigint;
  first: bigint;
  last: bigint;
}
interface MKeeper {
  name: string;
  registeredAt: bigint;
  stake: bigint;
  fills: bigint;
  execs: bigint;
  profit: bigint;
  rtTotal: bigint;
  rtCount: bigint;
}
/** The vault's profit lock. */
export interface Lock {
  amount: bigint;
  from: bigint;
  until: bigint;
}

/** Outcome: a value, a typed error code, or a host error (code undefined). */
type Outcome = { ok: true; value?: unknown } | { ok: false; code: number | undefined };
/** What a step returned. */
export type Result = { ok: true; value: unknown } | { ok: false; code: number | undefined };

const E = VigilError;
const I64_MAX = (1n << 63n) - 1n;
const DAY = 86_400n;
/** The vault's bounds (contracts/vault/assembly/index.ts). */
const MAX_COOLDOWN = 7n * DAY;
const MAX_UNLOCK = 30n * DAY;
const MAX_DELAY = 30n * DAY;
const DELAY_MARGIN = 3600n;
const MAX_SLIPPAGE = 1000;
const MAX_ENTRIES = 16;
const MAX_PAGE = 100;
const MAX_RESPONSE_MS = 3_600_000n;
/** Longest single jump in time the model makes (seconds). */
const MAX_JUMP = 40_000n;

function errCode(e: unknown): number | undefined {
  const m = /Error\(Contract, #(\d+)\)/.exec(String((e as Error)?.message ?? e));
  return m ? Number(m[1]) : undefined;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

/** Profit still locked at `t`: ceil(amount·(until−t)/(until−from)), 0 from `until` on. */
export function lockedAt(l: Lock, t: bigint): bigint {
  if (t >= l.until || l.amount === 0n) return 0n;
  return ceilDiv(l.amount * (l.until - t), l.until - l.from);
}

/**
 * The lock after a profit `p` at `now`: what is still locked and `p` unlock together, until
 * max(the old end, now + profit_unlock_secs).
 */
export function lockWith(l: Lock, p: bigint, unlockSecs: bigint, now: bigint): Lock {
  const total = lockedAt(l, now) + p;
  if (total === 0n) return l;
  const end = now + unlockSecs;
  return { amount: total, from: now, until: l.until > end ? l.until : end };
}

/** A fresh contract address (no account needed: SAC contract balances). */
export function randomContract(): string {
  return StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
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

const subset = (a: string[], b: string[]) => a.every((x) => b.includes(x));

/** The new policy only restricts the current one (the vault's `onlyRestricts`). */
function onlyRestricts(next: FlashPolicy, cur: FlashPolicy): boolean {
  return next.max_slippage_bps <= cur.max_slippage_bps &&
    subset(next.executors, cur.executors) && subset(next.pools, cur.pools) &&
    subset(next.routers, cur.routers) && subset(next.tokens, cur.tokens);
}

/** The new config only lowers (or keeps) the brakes and keeps everything else. */
function onlyBrakes(next: VaultConfig, cur: VaultConfig): boolean {
  return next.deposit_cap <= cur.deposit_cap &&
    next.max_draw_per_keeper <= cur.max_draw_per_keeper &&
    next.min_fill_profit === cur.min_fill_profit && next.policy_delay === cur.policy_delay &&
    next.profit_unlock_secs === cur.profit_unlock_secs &&
    next.withdraw_cooldown === cur.withdraw_cooldown;
}

function validConfig(c: VaultConfig): boolean {
  const inI64 = (x: bigint, min: bigint) => x >= min && x <= I64_MAX;
  return inI64(c.deposit_cap, 1n) && inI64(c.max_draw_per_keeper, 0n) &&
    inI64(c.min_fill_profit, 0n) && c.withdraw_cooldown <= MAX_COOLDOWN &&
    c.profit_unlock_secs <= MAX_UNLOCK &&
    c.policy_delay >= c.withdraw_cooldown + DELAY_MARGIN && c.policy_delay <= MAX_DELAY;
}

/** The config a `config` operation sends, derived from the one in force. */
function configFor(cur: VaultConfig, field: ConfigField, pick: number): VaultConfig {
  const c = { ...cur };
  const choose = <T>(xs: T[]) => xs[pick % xs.length];
  switch (field) {
    case "same":
      break;
    case "brake":
      // Lower one or both brakes (or keep them: still "at once").
      if (pick % 3 !== 1) c.deposit_cap = c.deposit_cap > 1n ? c.deposit_cap / 2n : 1n;
      if (pick % 3 !== 0) c.max_draw_per_keeper = choose([0n, c.max_draw_per_keeper / 2n]);
      break;
    case "cap":
      c.deposit_cap = choose([c.deposit_cap + 1n, 20_000_000n * USDC, I64_MAX, 0n, I64_MAX + 1n]);
      break;
    case "draw":
      c.max_draw_per_keeper = choose([
        c.max_draw_per_keeper + 1n,
        50_000n * USDC,
        TESTNET_LIMITS.max_draw_per_keeper,
        I64_MAX,
        -1n,
      ]);
      break;
    case "min_fill":
      c.min_fill_profit = choose([0n, 1n, USDC, 100n * USDC, I64_MAX, -1n, I64_MAX + 1n]);
      break;
    case "unlock":
      c.profit_unlock_secs = choose([0n, 1n, 600n, 3600n, DAY, MAX_UNLOCK, MAX_UNLOCK + 1n]);
      break;
    case "cooldown":
      // The delay stays: a longer cooldown may break policy_delay ≥ cooldown + 3600.
      c.withdraw_cooldown = choose([0n, 60n, 600n, 3600n, MAX_COOLDOWN, MAX_COOLDOWN + 1n]);
      break;
    case "cooldown_and_delay":
      c.withdraw_cooldown = choose([0n, 60n, 600n, 3600n, 7200n]);
      c.policy_delay = c.withdraw_cooldown + DELAY_MARGIN;
      break;
    case "delay":
      c.policy_delay = choose([
        c.withdraw_cooldown + DELAY_MARGIN - 1n,
        c.withdraw_cooldown + DELAY_MARGIN,
        c.withdraw_cooldown + 2n * DELAY_MARGIN,
        MAX_DELAY,
        MAX_DELAY + 1n,
      ]);
      break;
  }
  return c;
}

/** Figures the sequences gather (printed by the test; checked for coverage). */
export const figures = {
  stats: {} as Record<string, number>,
  /** Just-in-time rounds with no older lock: the largest gain / (share × profit), and w/T there. */
  jitFresh: { rounds: 0, maxRatio: 0, ratioAtMax: "", sumRatio: 0, maxOfBound: 0 },
  /**
   * Rounds over an older, still unlocking profit: the largest gain / its bound (share × (what the
   * older lock released before the flash + (locked at the flash + profit) × min(w,T)/T)).
   */
  jitMerged: { rounds: 0, maxFactor: 0, at: "" },
};

/** The model plus the runner of one sequence. */
export class VigilModel {
  // Vault books and profit lock.
  U = 0n;
  S = 0n;
  P = 0n;
  lock: Lock = { amount: 0n, from: 0n, until: 0n };
  everProfit = false;
  deps = new Map<string, MDep>();
  own: MDep = VigilModel.emptyDep();
  // Admin-controlled state (in force, and queued).
  cfg: VaultConfig;
  pendingCfg: PendingConfig | null = null;
  policy: FlashPolicy;
  pendingPolicy: PendingFlashPolicy | null = null;
  admin: { vault: string | null; registry: string | null };
  pendingAdmin: { vault: string | null; registry: string | null } = {
    vault: null,
    registry: null,
  };
  // Registry.
  keepers = new Map<string, MKeeper>();
  /** Registered operators in the registry's list order (swap-removed on deregister). */
  list: string[] = [];
  minStake: bigint = TESTNET_LIMITS.min_stake;
  /** USDC each keeper was given (mints), stakes and profits aside: its net must stay ≤ 0. */
  given = new Map<string, bigint>();
  paidProfit = new Map<string, bigint>();
  /** Spare addresses policies list as a second pool, routers and hop tokens. */
  readonly spare = Array.from({ length: 5 }, randomContract);
  /** Chain values seen by the last check (the "before" of the next one). */
  private seen: { Uu: bigint; S: bigint; locked: bigint } | null = null;
  /** Whether the registry list changed since the last full page comparison. */
  private listDirty = true;

  constructor(readonly c: VigilChain) {
    this.cfg = { ...c.config };
    this.policy = {
      executors: [c.liquidator],
      max_slippage_bps: 300,
      pools: [],
      routers: [],
      tokens: [],
    };
    this.admin = { vault: c.admins[0], registry: c.admins[0] };
  }

  static emptyDep(): MDep {
    return {
      shares: 0n,
      locked: 0n,
      unlockAt: 0n,
      deposited: 0n,
      withdrawn: 0n,
      first: 0n,
      last: 0n,
    };
  }

  private count(k: string, n = 1) {
    figures.stats[k] = (figures.stats[k] ?? 0) + n;
  }

  /**
   * Queues the policy listing the test executor and the fake pool (the deployment lists only the
   * liquidator, and listing is never instant), waits until it is in force, then registers the
   * keepers and the deployment's crowd.
   */
  async init(crowd = 0): Promise<void> {
    const c = this.c;
    for (const k of c.keepers) this.given.set(k, await c.balance(k));
    await this.check(0n);
    await this.step({
      t: "policy",
      exec: true,
      liq: true,
      pool: true,
      pool2: false,
      routers: 0,
      tokens: 0,
      bps: 300,
      bad: "none",
    });
    assert.ok(this.pendingPolicy, "listing an executor is queued");
    await this.step({ t: "time_to", target: "policy", who: 0, delta: 0 });
    assert.ok(this.policy.executors.includes(c.executor), "the queued listing is in force");
    for (const k of c.keepers) await this.step({ t: "register", who: c.keepers.indexOf(k) });
    if (crowd > 0) await this.step({ t: "crowd", n: crowd });
  }

  private dep(a: string): MDep {
    let d = this.deps.get(a);
    if (!d) {
      d = VigilModel.emptyDep();
      this.deps.set(a, d);
    }
    return d;
  }

  private async give(who: string, amount: bigint): Promise<void> {
    if (amount <= 0n) return;
    await this.c.mint(who, amount);
    this.given.set(who, (this.given.get(who) ?? 0n) + amount);
  }

  /** Queued changes whose time has come are in force (the contract computes this on read). */
  private settle(now: bigint): void {
    if (this.pendingCfg && now >= this.pendingCfg.applies_at) {
      this.cfg = this.pendingCfg.config;
      this.pendingCfg = null;
      this.count("config_came_into_force");
    }
    if (this.pendingPolicy && now >= this.pendingPolicy.applies_at) {
      this.policy = this.pendingPolicy.policy;
      this.pendingPolicy = null;
      this.count("policy_came_into_force");
    }
  }

  /** Unlocked capital at `t` (what prices shares). */
  unlocked(t: bigint): bigint {
    return this.U - lockedAt(this.lock, t);
  }

  /** Moves time so that the next invocation runs at `target` (1 s on if it is past). */
  async timeTo(target: bigint): Promise<void> {
    const c = this.c;
    const now = await c.now();
    if (target <= now) return await c.advanceTime(1);
    await c.advanceTo(target);
    const got = await c.now();
    assert.ok(got >= target, "time_to: the clock stopped short of the target");
    this.count(got === target ? "time_to_exact" : "time_to_late");
  }

  /** Runs one op: predicts, executes, compares, checks invariants. Returns what it got. */
  async step(op: Op): Promise<Result> {
    const c = this.c;
    if (op.t === "time" || op.t === "time_to") {
      if (op.t === "time") await c.advanceTime(op.seconds);
      else {
        let t = await this.timeTarget(op);
        // Far targets (a 30-day delay) stay out of reach: each ledger closed costs time.
        if (t !== undefined && t - (await c.now()) > MAX_JUMP) t = undefined;
        if (t === undefined) await c.advanceTime(1);
        else await this.timeTo(t + BigInt(op.delta));
        this.count(t === undefined ? "time_to:none" : `time_to:${op.target}`);
      }
      this.count("time");
      await this.check(0n);
      return { ok: true, value: undefined };
    }
    if (op.t === "jit") return await this.jit(op);

    /** Acceptable outcome, and what a success changes in the model. */
    let expect = { ok: true } as Outcome;
    let run: () => Promise<unknown> = () => Promise.resolve();
    let apply: (value: unknown) => void = () => {};
    let stepProfit = 0n;
    const err = (code: number | undefined): Outcome => ({ ok: false, code });
    // Everything that needs a mint happens before `now` is read: mints don't move the clock,
    // but reading it last keeps the prediction next to the call.
    const prepare: (() => Promise<void>)[] = [];
    let now = 0n;
    let predict: () => void = () => {};

    switch (op.t) {
      case "deposit": {
        const who = c.depositors[op.who];
        const a = op.amount;
        predict = () => {
          let minted = 0n;
          const Uu = this.unlocked(now);
          if (a <= 0n) return void (expect = err(E.InvalidAmount));
          if (this.U + a > this.cfg.deposit_cap) return void (expect = err(E.DepositCapExceeded));
          if (this.S === 0n) minted = a - MIN_LIQUIDITY;
          else if (Uu <= 0n) return void (expect = err(E.PoolInsolvent));
          else minted = (a * this.S) / Uu;
          expect = minted <= 0n ? err(E.ZeroShares) : { ok: true, value: minted };
          apply = () => {
            const d = this.dep(who);
            if (d.deposited === 0n) d.first = now;
            d.locked = now < d.unlockAt ? d.locked + minted : minted;
            d.unlockAt = now + this.cfg.withdraw_cooldown;
            d.shares += minted;
            d.deposited += a;
            d.last = now;
            if (this.S === 0n) {
              this.own.shares += MIN_LIQUIDITY;
              if (this.own.first === 0n) this.own.first = now;
              this.own.last = now;
              this.S += MIN_LIQUIDITY;
            }
            this.S += minted;
            this.U += a;
          };
        };
        run = () => c.invoke(c.vault, "deposit", { depositor: who, amount: a });
        break;
      }
      case "withdraw": {
        const who = c.depositors[op.who];
        const d = this.dep(who);
        const shares = op.shares ?? (d.shares * BigInt(op.bps)) / 10_000n + op.extra;
        predict = () => {
          const Uu = this.unlocked(now);
          const amount = this.S === 0n ? 0n : (shares * Uu) / this.S;
          const stillLocked = now < d.unlockAt ? d.locked : 0n;
          if (shares <= 0n) expect = err(E.InvalidAmount);
          else if (shares > d.shares) expect = err(E.InsufficientShares);
          else if (shares > d.shares - stillLocked) expect = err(E.WithdrawCooldown);
          else if (amount === 0n) expect = err(E.ZeroPayout);
          else if (amount > this.U) expect = err(E.InsufficientLiquidity);
          else expect = { ok: true, value: amount };
          apply = () => {
            // Pro-rata bound: the payout never exceeds the burnt shares' exact unlocked value.
            assert.ok(amount * this.S <= shares * Uu, "withdraw paid above pro-rata");
            d.shares -= shares;
            d.locked = stillLocked;
            d.withdrawn += amount;
            this.S -= shares;
            this.U -= amount;
          };
        };
        run = () => c.invoke(c.vault, "withdraw", { depositor: who, shares });
        break;
      }
      case "flash": {
        const all = [...c.keepers, ...c.depositors];
        const who = all[op.who];
        const k = this.keepers.get(who);
        const viaLiquidator = op.kind === "liq" || op.kind === "liq_loss";
        const executor = viaLiquidator ? c.liquidator : op.rogue ? c.rogue : c.executor;
        // The profit depends on min_fill_profit in force: fixed once `now` is known, below.
        let profit = 0n;
        let a = 0n;
        const fillNow = async () => {
          now = await c.now();
          this.settle(now);
          a = op.abs ?? (this.U * BigInt(op.bps)) / 10_000n;
          const mf = this.cfg.min_fill_profit;
          profit = op.kind !== "profit"
            ? 0n
            : op.near && mf < 1_000_000n * USDC
            ? [mf - 1n, mf, mf + 1n][Number(op.x % 3n)]
            : op.x + 1n;
          if (op.kind === "profit" && profit < 1n) profit = 1n;
          // The keeper earns its profit elsewhere (the liquidation): give it that USDC first.
          if (profit > 0n) {
            const held = await c.balance(who);
            if (held < profit) await this.give(who, profit - held);
          }
        };
        prepare.push(fillNow);
        predict = () => {
          if (a <= 0n) expect = err(E.InvalidAmount);
          // Not in the policy in force: refused before the registry is even asked.
          else if (!this.policy.executors.includes(executor)) expect = err(E.ExecutorNotAllowed);
          else if (!k) expect = err(E.NotRegistered);
          else if (k.stake < this.minStake) expect = err(E.StakeBelowMinimum);
          else if (a > this.U) expect = err(E.InsufficientLiquidity);
          else if (a > this.cfg.max_draw_per_keeper) expect = err(E.DrawLimitExceeded);
          // The liquidator refuses a plan on a pool the forwarded policy does not list.
          else if (viaLiquidator && !this.policy.pools.includes(c.pool)) expect = err(E.NotAllowed);
          else if (op.kind === "short" || op.kind === "none" || op.kind === "liq_loss") {
            expect = err(E.FlashNotRepaid);
          } else if (op.kind === "reenter") expect = err(undefined); // host: re-entry refused
          else expect = { ok: true, value: profit };
          const counted = profit >= this.cfg.min_fill_profit;
          const rt = op.rt > MAX_RESPONSE_MS ? MAX_RESPONSE_MS : op.rt;
          apply = () => {
            this.U += profit;
            this.P += profit;
            stepProfit = profit;
            if (profit > 0n) {
              const had = lockedAt(this.lock, now);
              this.lock = lockWith(this.lock, profit, this.cfg.profit_unlock_secs, now);
              this.everProfit = true;
              this.count(had > 0n ? "lock_merged" : "lock_fresh");
            }
            k!.execs += 1n;
            k!.profit += profit;
            if (counted) {
              k!.fills += 1n;
              k!.rtTotal += rt;
              k!.rtCount += 1n;
            }
            this.count(counted ? "fill_counted" : "fill_not_counted");
            this.paidProfit.set(who, (this.paidProfit.get(who) ?? 0n) + profit);
            this.count(`flash_${op.kind}`);
          };
        };
        // The liquidator's in-invocation allowances must live until a ledger not yet passed
        // (time moves close many ledgers on this shared node).
        run = async () =>
          c.invoke(c.vault, "flash", {
            keeper: who,
            executor,
            amount: a,
            data: viaLiquidator
              ? planScVal(
                c.pool,
                op.kind === "liq_loss" ? [{ address: c.usdc, amount: 1n, type: 5 }] : [],
                [],
                (await c.ledger()) + 10_000,
              )
              : flashScript(
                c.vault,
                who,
                a > 0n ? a : 0n,
                op.kind,
                op.kind === "profit" ? profit - 1n : op.x,
              ),
            response_time_ms: op.rt,
          });
        break;
      }
      case "policy": {
        const s = this.spare;
        const p: FlashPolicy = {
          executors: [...(op.liq ? [c.liquidator] : []), ...(op.exec ? [c.executor] : [])],
          max_slippage_bps: op.bps,
          pools: [...(op.pool ? [c.pool] : []), ...(op.pool2 ? [s[0]] : [])],
          routers: [s[1], s[2]].filter((_, i) => op.routers & (1 << i)),
          tokens: [s[3], s[4]].filter((_, i) => op.tokens & (1 << i)),
        };
        if (op.bad === "entries") p.pools = [...Array(MAX_ENTRIES).fill(s[0]), c.pool]; // 17
        predict = () => {
          if (op.restrict != null && op.bad === "none") {
            const cur = this.policy;
            const dropExecutor = (op.restrict & 6) === 6;
            p.executors = cur.executors.filter((e) => !(dropExecutor && e === c.executor));
            p.pools = cur.pools.filter((e) => !(op.restrict! & 1 && e === c.pool));
            p.routers = [...cur.routers];
            p.tokens = [...cur.tokens];
            p.max_slippage_bps = op.restrict & 4 && op.bps < cur.max_slippage_bps
              ? op.bps
              : cur.max_slippage_bps;
          }
          if (this.admin.vault === null) return void (expect = err(E.Unauthorized));
          if (p.max_slippage_bps > MAX_SLIPPAGE || p.pools.length > MAX_ENTRIES) {
            return void (expect = err(E.InvalidConfig));
          }
          const atOnce = onlyRestricts(p, this.policy);
          const appliesAt = now + this.cfg.policy_delay;
          apply = () => {
            if (!atOnce) this.countExposed(appliesAt);
            if (atOnce) {
              this.policy = p;
              this.pendingPolicy = null;
            } else this.pendingPolicy = { applies_at: appliesAt, policy: p };
            this.count(atOnce ? "policy_at_once" : "policy_queued");
          };
        };
        run = () => c.invoke(c.vault, "set_flash_policy", { policy: p });
        break;
      }
      case "config": {
        let next = this.cfg;
        predict = () => {
          next = configFor(this.cfg, op.field, op.pick);
          if (this.admin.vault === null) return void (expect = err(E.Unauthorized));
          if (!validConfig(next)) return void (expect = err(E.InvalidConfig));
          // Shares minted under the cooldown in force must be able to leave before the next change.
          if (next.policy_delay < this.cfg.withdraw_cooldown + DELAY_MARGIN) {
            return void (expect = err(E.InvalidConfig));
          }
          const atOnce = onlyBrakes(next, this.cfg);
          const appliesAt = now + this.cfg.policy_delay;
          apply = () => {
            if (!atOnce) this.countExposed(appliesAt);
            if (atOnce) {
              this.cfg = next;
              this.pendingCfg = null;
            } else this.pendingCfg = { applies_at: appliesAt, config: next };
            this.count(atOnce ? "config_at_once" : "config_queued");
          };
        };
        run = () => c.invoke(c.vault, "set_config", { config: next });
        break;
      }
      case "cancel": {
        predict = () => {
          if (this.admin.vault === null) expect = err(E.Unauthorized);
          else if (!this.pendingCfg && !this.pendingPolicy) expect = err(E.NothingPending);
          apply = () => {
            this.pendingCfg = null;
            this.pendingPolicy = null;
          };
        };
        run = () => c.invoke(c.vault, "cancel_pending");
        break;
      }
      case "admin": {
        const on = op.on;
        const id = on === "vault" ? c.vault : c.registry;
        const to = c.admins[op.to];
        predict = () => {
          if (op.act === "accept") {
            const next = this.pendingAdmin[on];
            if (next === null) return void (expect = err(E.NothingPending));
            apply = () => {
              this.admin[on] = next;
              this.pendingAdmin[on] = null;
            };
          } else if (this.admin[on] === null) expect = err(E.Unauthorized);
          else if (op.act === "propose") apply = () => (this.pendingAdmin[on] = to);
          else {
            apply = () => {
              this.admin[on] = null;
              this.pendingAdmin[on] = null;
              // The vault drops what is still queued: nothing can change after a renounce.
              if (on === "vault") {
                this.pendingCfg = null;
                this.pendingPolicy = null;
              }
            };
          }
        };
        run = () =>
          op.act === "propose"
            ? c.invoke(id, "propose_admin", { new_admin: to })
            : c.invoke(id, `${op.act}_admin`);
        break;
      }
      case "register": {
        const who = c.keepers[op.who];
        prepare.push(async () => {
          const held = await c.balance(who);
          if (held < this.minStake) await this.give(who, this.minStake - held);
        });
        predict = () => {
          if (this.keepers.has(who)) return void (expect = err(E.AlreadyRegistered));
          const stake = this.minStake;
          apply = () => this.addKeeper(who, `keeper-${op.who}`, stake, now);
        };
        run = () => c.invoke(c.registry, "register", { operator: who, name: `keeper-${op.who}` });
        break;
      }
      case "deregister":
      case "uncrowd": {
        const pick = () =>
          op.t === "deregister"
            ? c.keepers[op.who]
            : this.list.length > 0
            ? this.list[op.pick % this.list.length]
            : c.keepers[0];
        let who = pick();
        predict = () => {
          who = pick();
          const k = this.keepers.get(who);
          // Nothing can be outstanding: deregistration always pays the stake back.
          expect = k ? { ok: true, value: k.stake } : err(E.NotRegistered);
          apply = () => this.removeKeeper(who);
        };
        run = () => c.invoke(c.registry, "deregister", { operator: who });
        break;
      }
      case "crowd": {
        // Several registrations in one step, each predicted (throwaway registrants).
        for (let i = 0; i < op.n; i++) {
          const who = randomContract();
          await this.give(who, this.minStake);
          const now = await c.now();
          await c.invoke(c.registry, "register", { operator: who, name: "crowd" });
          this.addKeeper(who, "crowd", this.minStake, now);
        }
        this.count("crowd_registered", op.n);
        this.count(`${op.t}:ok`);
        await this.check(0n);
        return { ok: true, value: undefined };
      }
      case "page": {
        predict = () => {
          const n = Math.min(op.limit, MAX_PAGE);
          expect = { ok: true, value: this.list.slice(op.start, op.start + n) };
        };
        run = () => c.view(c.registry, "get_keepers", { start: op.start, limit: op.limit });
        break;
      }
      case "min_stake": {
        const v = op.value === "high"
          ? 150n * USDC
          : op.value === "zero"
          ? 0n
          : TESTNET_LIMITS.min_stake;
        predict = () => {
          if (this.admin.registry === null) expect = err(E.Unauthorized);
          else if (v < 1n) expect = err(E.InvalidConfig);
          apply = () => (this.minStake = v);
        };
        run = () => c.invoke(c.registry, "set_config", { min_stake: v });
        break;
      }
    }

    for (const p of prepare) await p();
    now = await c.now();
    this.settle(now);
    predict();

    let result: { ok: true; value: unknown } | { ok: false; code: number | undefined; e: unknown };
    try {
      result = { ok: true, value: await run() };
    } catch (e) {
      result = { ok: false, code: errCode(e), e };
    }
    this.count(`${op.t}:${result.ok ? "ok" : result.code ?? "host"}`);
    const what = JSON.stringify(op, big);
    if (result.ok) {
      assert.ok(expect.ok, `${what}: expected ${JSON.stringify(expect, big)}, got ok`);
      if (expect.value !== undefined) {
        assert.deepEqual(result.value, expect.value, `${what}: return value`);
      }
      apply(result.value);
    } else {
      assert.ok(
        !expect.ok && expect.code === result.code,
        `${what}: expected ${JSON.stringify(expect, big)}, got ${result.e}`,
      );
      stepProfit = 0n;
    }
    await this.check(stepProfit);
    return result.ok ? { ok: true, value: result.value } : { ok: false, code: result.code };
  }

  /**
   * A queued change should leave every depositor time to exit first (policy_delay ≥ cooldown +
   * 1 h). Counts depositors whose shares stay locked past `appliesAt` − 1 h: possible after the
   * cooldown was lowered, for shares minted under the longer one (a figure, not a failure).
   */
  private countExposed(appliesAt: bigint): void {
    for (const d of this.deps.values()) {
      if (d.locked > 0n && d.unlockAt > appliesAt - DELAY_MARGIN) {
        this.count(d.unlockAt > appliesAt ? "queued_locked_past_applies" : "queued_within_hour");
      }
    }
  }

  private addKeeper(who: string, name: string, stake: bigint, now: bigint): void {
    this.keepers.set(who, {
      name,
      registeredAt: now,
      stake,
      fills: 0n,
      execs: 0n,
      profit: 0n,
      rtTotal: 0n,
      rtCount: 0n,
    });
    this.list.push(who);
    this.listDirty = true;
  }

  /** Deregistration: the last operator moves into the freed index. */
  private removeKeeper(who: string): void {
    this.keepers.delete(who);
    const i = this.list.indexOf(who);
    const last = this.list.pop()!;
    if (i < this.list.length) this.list[i] = last;
    this.listDirty = true;
  }

  /** The time a `time_to` operation aims at, or undefined when there is none. */
  private async timeTarget(op: Extract<Op, { t: "time_to" }>): Promise<bigint | undefined> {
    const now = await this.c.now();
    this.settle(now);
    switch (op.target) {
      case "lock":
        return lockedAt(this.lock, now) > 0n ? this.lock.until : undefined;
      case "policy":
        return this.pendingPolicy?.applies_at;
      case "config":
        return this.pendingCfg?.applies_at;
      case "unlock": {
        const d = this.deps.get(this.c.depositors[op.who]);
        return d && d.unlockAt > now ? d.unlockAt : undefined;
      }
    }
  }

  /**
   * A just-in-time round: a depositor deposits right before a keeper's profitable flash, waits
   * (its cooldown, part of the unlock, or the lock's end) and withdraws exactly the shares it got.
   * Its gain is at most its pro-rata share of what unlocked meanwhile; with no older lock, at most
   * share × profit × waited / profit_unlock_secs (the floors only lower it).
   */
  private async jit(op: Extract<Op, { t: "jit" }>): Promise<Result> {
    const c = this.c;
    const who = c.depositors[op.who];
    const t0 = await c.now();
    this.settle(t0);
    const older = lockedAt(this.lock, t0);
    const olderLock = { ...this.lock };
    const dep = await this.step({ t: "deposit", who: op.who, amount: op.amount });
    if (!dep.ok) return dep;
    const m = dep.value as bigint;
    const S1 = this.S;
    const fl = await this.step({
      t: "flash",
      who: op.keeper,
      bps: 0,
      abs: op.amount < this.cfg.max_draw_per_keeper ? op.amount : this.cfg.max_draw_per_keeper,
      kind: "profit",
      x: op.profit - 1n,
      near: false,
      rt: 1n,
      rogue: false,
    });
    const p = fl.ok ? fl.value as bigint : 0n;
    const T = this.cfg.profit_unlock_secs;
    const tFlash = await c.now();
    const d = this.dep(who);
    const target = op.wait === "cooldown"
      ? d.unlockAt
      : op.wait === "end"
      ? (this.lock.until > d.unlockAt ? this.lock.until : d.unlockAt)
      : d.unlockAt + (T * BigInt(op.frac)) / 8n;
    if (target > tFlash && target - tFlash <= MAX_JUMP) {
      await this.timeTo(target);
      await this.check(0n);
    }
    const tw = await c.now();
    const unlockedMeanwhile = older + p - lockedAt(this.lock, tw);
    const wd = await this.step({ t: "withdraw", who: op.who, bps: 0, extra: 0n, shares: m });
    this.count("jit_rounds");
    if (!wd.ok || p === 0n) return wd;
    const gain = (wd.value as bigint) - op.amount;
    const w = tw - tFlash;
    // Exact accounting bound (any lock history): gain ≤ m/S1 × what unlocked while it held.
    assert.ok(
      gain * S1 <= m * unlockedMeanwhile,
      `jit: gain ${gain} above the pro-rata share ${m}/${S1} of ${unlockedMeanwhile} unlocked`,
    );
    const proRata = Number(m * p) / Number(S1);
    const waited = T === 0n ? 1 : Math.min(1, Number(w) / Number(T));
    if (older === 0n) {
      // The documented bound: share × profit × min(waited, T)/T, + 1 unit per operation.
      const wMin = T === 0n ? 1n : w < T ? w : T;
      const tDiv = T === 0n ? 1n : T;
      assert.ok(
        (gain - 2n) * S1 * tDiv <= m * p * wMin,
        `jit: gain ${gain} above share ${m}/${S1} × ${p} × ${wMin}/${tDiv}`,
      );
      const f = figures.jitFresh;
      f.rounds++;
      if (proRata >= 100_000) {
        const ratio = Number(gain) / proRata;
        f.sumRatio += ratio;
        if (waited > 0) f.maxOfBound = Math.max(f.maxOfBound, ratio / waited);
        if (ratio > f.maxRatio) {
          f.maxRatio = ratio;
          f.ratioAtMax = `waited ${w}s of T=${T}s (w/T=${waited.toFixed(3)})`;
        }
      }
    } else if (T > 0n) {
      // An older lock still unlocking. A new profit restarts the unlock of everything locked over
      // at least T (until = max(old end, now + T)), so after the flash nothing unlocks faster than
      // (locked then + profit)/T: the round gets at most its share of what the older lock
      // released before the flash, plus its share of (locked at the flash + p) × min(w, T)/T.
      const lockedAtFlash = this.lock.amount - p;
      const beforeFlash = older - lockedAtFlash;
      const wMin = w < T ? w : T;
      assert.ok(
        (gain - 2n) * S1 * T <= m * (beforeFlash * T + (lockedAtFlash + p) * wMin),
        `jit over an older lock: gain ${gain} above share ${m}/${S1} × (${beforeFlash} + ` +
          `(${lockedAtFlash} + ${p}) × ${wMin}/${T})`,
      );
      const bound = Number(m) / Number(S1) *
        (Number(beforeFlash) + Number(lockedAtFlash + p) * Number(wMin) / Number(T));
      const f = figures.jitMerged;
      f.rounds++;
      if (bound >= 100_000) {
        const factor = Number(gain) / bound;
        if (factor > f.maxFactor) {
          f.maxFactor = factor;
          f.at = `older lock ${older} ending in ${olderLock.until - t0}s, profit ${p}, T=${T}s, ` +
            `waited ${w}s: gained ${(100 * factor).toFixed(1)} % of its bound`;
        }
      }
    }
    return wd;
  }

  /** Compares the chain with the model and checks the invariants. */
  async check(stepProfit: bigint): Promise<void> {
    const c = this.c;
    const now = await c.now();
    this.settle(now);
    const locked = lockedAt(this.lock, now);
    const st = await c.view<VaultState>(c.vault, "get_state");
    assert.deepEqual(st, {
      active_liq: 0n,
      locked_profit: locked,
      total_profit: this.P,
      total_shares: this.S,
      total_usdc: this.U,
      unlock_end: locked > 0n ? this.lock.until : 0n,
    }, "get_state");
    assert.ok(st.locked_profit <= st.total_usdc, "locked_profit > total_usdc");
    assert.equal(await c.view(c.vault, "get_total_loss"), 0n, "no loss path");

    // Admin-controlled state: in force and queued.
    assert.deepEqual(await c.view(c.vault, "get_config"), this.cfg, "get_config");
    assert.deepEqual(
      await c.view(c.vault, "get_pending_config"),
      this.pendingCfg,
      "pending config",
    );
    assert.deepEqual(await c.view(c.vault, "get_flash_policy"), this.policy, "get_flash_policy");
    assert.deepEqual(
      await c.view(c.vault, "get_pending_flash_policy"),
      this.pendingPolicy,
      "pending policy",
    );
    for (const [on, id] of [["vault", c.vault], ["registry", c.registry]] as const) {
      assert.equal(await c.view(id, "get_admin"), this.admin[on], `${on} admin`);
      assert.equal(await c.view(id, "get_pending_admin"), this.pendingAdmin[on], `${on} pending`);
    }

    // Token balance invariant, read from the USDC SAC itself: every unit is accounted for.
    assert.equal(await c.balance(c.vault), st.total_usdc, "vault balance != total_usdc");

    // Records: the vault's own (the locked minimum) and each depositor's, exactly.
    const Uu = st.total_usdc - st.locked_profit;
    const rec = (m: MDep): Depositor => ({
      deposited: m.deposited,
      first_deposit_at: m.first,
      last_deposit_at: m.last,
      locked_shares: m.locked,
      shares: m.shares,
      unlock_at: m.unlockAt,
      withdrawn: m.withdrawn,
    });
    const ownRec = await c.view<Depositor>(c.vault, "get_depositor", { depositor: c.vault });
    assert.deepEqual(ownRec, rec(this.own), "the vault's own record");
    let sum = ownRec.shares;
    let values = 0n;
    for (const who of c.depositors) {
      const d = await c.view<Depositor>(c.vault, "get_depositor", { depositor: who });
      const m = this.dep(who);
      assert.deepEqual(d, rec(m), "depositor record");
      sum += d.shares;
      const b = await c.view<DepositorBalance>(c.vault, "balance", { depositor: who });
      const value = st.total_shares === 0n ? 0n : (d.shares * Uu) / st.total_shares;
      assert.deepEqual(b, { shares: d.shares, usdc_value: value }, "balance");
      values += b.usdc_value;
      // Rounding never pays out more than was put in (while no profit was booked).
      if (!this.everProfit) {
        assert.ok(d.withdrawn + b.usdc_value <= d.deposited, "rounding paid out");
      }
    }
    assert.equal(sum, st.total_shares, "sum of shares != total_shares");
    assert.ok(values <= Uu);
    // Conservation: the books are deposits - withdrawals + profit.
    let dep = 0n, wd = 0n;
    for (const m of this.deps.values()) {
      dep += m.deposited;
      wd += m.withdrawn;
    }
    assert.equal(st.total_usdc, dep - wd + this.P, "total_usdc conservation");

    // THE property: the share price (unlocked capital per share) never falls, whatever anyone
    // did, and the locked profit rises only by the profit this step booked.
    const before = this.seen;
    if (before && before.S > 0n && st.total_shares > 0n) {
      assert.ok(Uu * before.S >= before.Uu * st.total_shares, "share price fell");
    }
    if (before) {
      assert.ok(st.locked_profit <= before.locked + stepProfit, "locked_profit rose");
      if (before.locked > 0n && st.locked_profit < before.locked) {
        this.count(st.locked_profit === 0n ? "lock_fully_unlocked" : "lock_partly_unlocked");
      }
    }
    this.seen = { Uu, S: st.total_shares, locked: st.locked_profit };

    // Registry: stakes held, counters, the list.
    for (const who of c.keepers) {
      const m = this.keepers.get(who);
      // No keeper gains from the vault: balance = given − stake held − profit paid in.
      const held = await c.balance(who);
      const expected = (this.given.get(who) ?? 0n) - (m?.stake ?? 0n) -
        (this.paidProfit.get(who) ?? 0n);
      assert.equal(held, expected, "a keeper's USDC moved other than by stake and profit paid");
      if (!m) continue;
      const k = await c.view<KeeperInfo>(c.registry, "get_keeper", { operator: who });
      assert.deepEqual(k, {
        avg_response_time_ms: m.rtCount === 0n ? 0n : m.rtTotal / m.rtCount,
        name: m.name,
        operator: who,
        registered_at: m.registeredAt,
        response_count: m.rtCount,
        stake: m.stake,
        successful_fills: m.fills,
        total_executions: m.execs,
        total_profit: m.profit,
        total_response_time_ms: m.rtTotal,
      }, "keeper record");
    }
    let stakes = 0n;
    for (const k of this.keepers.values()) stakes += k.stake;
    assert.equal(await c.balance(c.registry), stakes, "registry balance != sum of stakes");
    assert.equal(await c.view(c.registry, "get_keeper_count"), this.list.length, "keeper count");
    assert.equal(
      (await c.view<RegistryConfig>(c.registry, "get_config")).min_stake,
      this.minStake,
      "min_stake",
    );
    if (this.listDirty) {
      // Every page, as a client pages through the list.
      const got: string[] = [];
      for (let start = 0; start <= this.list.length; start += MAX_PAGE) {
        got.push(...await c.view<string[]>(c.registry, "get_keepers", { start, limit: 1000 }));
      }
      assert.deepEqual(got, this.list, "get_keepers pages != the model's list");
      if (this.list.length > MAX_PAGE) this.count("list_over_one_page");
      this.listDirty = false;
    }
  }
}

/** JSON.stringify replacer for bigints. */
export const big = (_k: string, v: unknown): unknown => typeof v === "bigint" ? `${v}n` : v;

/** Number of property-test cases: VIGIL_PROPERTY_RUNS, else the CI default. */
export function propertyRuns(ciDefault: number): number {
  const v = Number(Deno.env.get("VIGIL_PROPERTY_RUNS") ?? "");
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : ciDefault;
}

/** The test executor and the fake pool listed, queued, and in force once the delay passed. */
export async function listTestExecutor(c: VigilChain): Promise<void> {
  await c.invoke(c.vault, "set_flash_policy", {
    policy: {
      executors: [c.liquidator, c.executor],
      max_slippage_bps: 300,
      pools: [c.pool],
      routers: [],
      tokens: [],
    },
  });
  await c.advanceTime(Number(c.config.policy_delay) + 1);
  const p = await c.view<FlashPolicy>(c.vault, "get_flash_policy");
  assert.ok(p.executors.includes(c.executor), "the listing applied after policy_delay");
}

/** Parameters of one share-inflation (first-depositor) attack. */
export interface AttackCase {
  /** The attacker's first deposit. */
  first: bigint;
  /** What the attacker donates to inflate the share price (a flash that repays extra). */
  donation: bigint;
  /** Victims' deposits that follow. */
  victims: bigint[];
  /** The vault's profit_unlock_secs (0: the donation prices shares at once). */
  unlock: bigint;
  /** Seconds the attacker waits after the victims, beyond the cooldown. */
  wait: number;
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
  unlock: fc.constantFrom(0n, 0n, 600n, 3600n, 86_400n),
  wait: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 30_000 })),
});

/**
 * Runs the classic attack on a fresh deployment (its config: `attackConfig(k)`): the attacker
 * (keeper 0, also a depositor) makes the first deposit, inflates the share price with a flash of
 * 1 unit repaid with `donation` on top (the only way left to raise total_usdc without minting
 * shares; it unlocks over profit_unlock_secs), lets the victims deposit, waits out the cooldown
 * (and `wait` more) and withdraws everything. Asserts the attacker ends with no more than it put
 * in, and that each victim lost less than one share's worth at the unlocked price (or was refused
 * with ZeroShares and lost nothing).
 */
export async function runInflationAttack(c: VigilChain, k: AttackCase): Promise<void> {
  const attacker = c.keepers[0];
  await listTestExecutor(c);
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
    // Lost less than one share at the pre-deposit unlocked price (+1 unit for the value's floor).
    const Uu = st.total_usdc - st.locked_profit;
    const price = ceilDiv(Uu, st.total_shares);
    assert.ok(
      b.usdc_value >= v - price - 1n,
      `victim lost more than one share: ${v} -> ${b.usdc_value}`,
    );
  }
  await c.advanceTime(Number(c.config.withdraw_cooldown) + 10 + k.wait);
  const mine = await c.view<DepositorBalance>(c.vault, "balance", { depositor: attacker });
  let out = 0n;
  if (mine.shares > 0n && mine.usdc_value > 0n) {
    out = await c.invoke<bigint>(c.vault, "withdraw", {
      depositor: attacker,
      shares: mine.shares,
    });
  }
  // Net USDC of the attacker over the attack (mints for the donation count as its spending).
  const end = await c.balance(attacker);
  const gained = end - (spent0 + topUp);
  assert.ok(gained <= 0n, `inflation attack profitable: +${gained} (out ${out})`);
}

/** The vault config of an attack case: the testnet limits, a short delay, its unlock time. */
export function attackConfig(k: AttackCase): VaultConfig {
  return deployConfig({
    cooldown: 3600n,
    delayExtra: 0n,
    unlock: k.unlock,
    minFill: USDC,
    crowd: 0,
  });
}
