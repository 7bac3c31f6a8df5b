/**
 * Vigil's vault: pooled USDC deposits with share accounting, keeper capital draws and returns.
 * See `contracts/README.md` for the full contract documentation.
 *
 * Books: `total_usdc` (owned capital, idle + deployed), `total_shares`, `total_profit`,
 * `active_liq` (deployed). After every call the vault's USDC token balance equals
 * `total_usdc - active_liq` (unsolicited token transfers aside, which are never counted).
 *
 * Rules beyond the spec (documented in the README):
 * - Shares: deposit mints floor(amount·S/U), withdraw pays floor(shares·U/S): both round toward
 *   the pool. The first deposit mints 1:1 and locks MIN_LIQUIDITY of those shares in the
 *   vault's own depositor record forever (the share-inflation defence, with ZeroShares).
 * - Only ledgers flows move funds: deposit (in), withdraw (out, idle capital only), draw (out
 *   to a registered keeper), return_proceeds (in), slashed stake (in, via the registry). No
 *   admin path moves funds; the admin changes bounded configuration only.
 *
 * @module
 */
import { addr, type ContractModule, type Env, fail, i128, sym, T, vec } from "../sdk.ts";
import type { xdr } from "@stellar/stellar-sdk";
import { VigilError as E } from "../registry/errors.ts";
import { add, I64_MAX, mulDivFloor, sub } from "./math.ts";
import {
  type Depositor,
  type DepositorBalance,
  VAULT_SPEC,
  type VaultConfig,
  type VaultState,
} from "./spec.ts";
import * as S from "./storage.ts";

export type { Depositor, DepositorBalance, VaultConfig, VaultState } from "./spec.ts";
export { VAULT_SPEC } from "./spec.ts";

/** Shares minted on the first deposit that nobody can ever withdraw (0.0001 USDC at price 1). */
export const MIN_LIQUIDITY = 1_000n;

/** Bounds of the vault's configuration (constructor and admin `set_config`). */
export const VAULT_BOUNDS = {
  depositCap: { min: 1n, max: I64_MAX },
  /** At most 7 days: the admin cannot lock depositors out for longer. */
  withdrawCooldown: { min: 0n, max: 7n * 86400n },
  maxDrawPerKeeper: { min: 0n, max: I64_MAX },
} as const;

function validateConfig(c: VaultConfig): void {
  const b = VAULT_BOUNDS;
  if (c.deposit_cap < b.depositCap.min || c.deposit_cap > b.depositCap.max) fail(E.InvalidConfig);
  if (
    c.withdraw_cooldown < b.withdrawCooldown.min || c.withdraw_cooldown > b.withdrawCooldown.max
  ) {
    fail(E.InvalidConfig);
  }
  if (
    c.max_draw_per_keeper < b.maxDrawPerKeeper.min || c.max_draw_per_keeper > b.maxDrawPerKeeper.max
  ) fail(E.InvalidConfig);
}

function mustGetRegistry(env: Env): string {
  const r = S.getRegistry(env);
  if (r === undefined) fail(E.NotInit);
  return r;
}

function emit(env: Env, name: string, subject: string | undefined, data: xdr.ScVal): void {
  env.emit(subject === undefined ? [sym(name)] : [sym(name), addr(subject)], data);
}

/** USDC the given shares are worth now, floored (0 when there are no shares). */
function sharesToAssets(state: VaultState, shares: bigint): bigint {
  return state.total_shares === 0n ? 0n : mulDivFloor(shares, state.total_usdc, state.total_shares);
}

function __constructor(
  env: Env,
  a: { admin: string; usdc: string; config: VaultConfig; registry?: string | null },
): void {
  validateConfig(a.config);
  S.setAdmin(env, a.admin);
  S.setUsdc(env, a.usdc);
  S.setConfig(env, a.config);
  S.setState(env, { active_liq: 0n, total_profit: 0n, total_shares: 0n, total_usdc: 0n });
  if (a.registry !== undefined && a.registry !== null) S.setRegistry(env, a.registry);
  S.bumpInstance(env);
  emit(
    env,
    "init",
    undefined,
    vec(addr(a.admin), addr(a.usdc), env.toScVal(a.config, T.udt("VaultConfig"))),
  );
  if (a.registry) emit(env, "set_registry", undefined, addr(a.registry));
}

function set_registry(env: Env, a: { registry: string }): void {
  env.requireAuth(S.getAdmin(env));
  if (S.getRegistry(env) !== undefined) fail(E.AlreadyInitialized);
  S.setRegistry(env, a.registry);
  S.bumpInstance(env);
  emit(env, "set_registry", undefined, addr(a.registry));
}

function set_config(env: Env, a: { config: VaultConfig }): void {
  env.requireAuth(S.getAdmin(env));
  validateConfig(a.config);
  S.setConfig(env, a.config);
  S.bumpInstance(env);
  emit(env, "set_config", undefined, env.toScVal(a.config, T.udt("VaultConfig")));
}

function deposit(env: Env, a: { depositor: string; amount: bigint }): bigint {
  if (a.amount <= 0n) fail(E.InvalidAmount);
  // The vault's own record holds the locked minimum-liquidity shares.
  if (a.depositor === env.currentContract) fail(E.Unauthorized);
  env.requireAuth(a.depositor);
  const cfg = S.getConfig(env);
  const st = S.getState(env);
  // deposit_cap bounds the capital under management after the deposit (idle + deployed +
  // accrued profit). Profit may lift total_usdc above the cap; that blocks deposits only.
  if (add(st.total_usdc, a.amount) > cfg.deposit_cap) fail(E.DepositCapExceeded);

  let minted: bigint;
  let locked = 0n;
  if (st.total_shares === 0n) {
    // First deposit: 1:1, of which MIN_LIQUIDITY shares are locked forever in the vault's
    // own record, so the share price can never be inflated from a near-empty pool.
    minted = a.amount - MIN_LIQUIDITY;
    locked = MIN_LIQUIDITY;
    if (minted <= 0n) fail(E.ZeroShares);
  } else {
    if (st.total_usdc === 0n) fail(E.PoolInsolvent);
    minted = mulDivFloor(a.amount, st.total_shares, st.total_usdc);
    if (minted === 0n) fail(E.ZeroShares);
  }

  const now = env.ledger.timestamp;
  const rec = S.getDepositor(env, a.depositor) ?? S.emptyDepositor();
  if (rec.deposited === 0n) rec.first_deposit_at = now;
  // Cooldown: the new shares are locked until now + withdraw_cooldown. Shares whose lock had
  // already expired stay free; shares still locked join the new lock (a top-up never re-locks
  // matured shares, unlike Nectar's whole-position re-lock).
  rec.locked_shares = now < rec.unlock_at ? add(rec.locked_shares, minted) : minted;
  rec.unlock_at = now + cfg.withdraw_cooldown;
  rec.shares = add(rec.shares, minted);
  rec.deposited = add(rec.deposited, a.amount);
  rec.last_deposit_at = now;
  S.setDepositor(env, a.depositor, rec);
  if (locked > 0n) {
    const own = S.getDepositor(env, env.currentContract) ?? S.emptyDepositor();
    own.shares = add(own.shares, locked);
    own.first_deposit_at = own.first_deposit_at || now;
    own.last_deposit_at = now;
    S.setDepositor(env, env.currentContract, own);
  }
  st.total_shares = add(add(st.total_shares, minted), locked);
  st.total_usdc = add(st.total_usdc, a.amount);
  S.setState(env, st);
  S.bumpInstance(env);

  env.call(S.getUsdc(env), "transfer", {
    from: a.depositor,
    to: env.currentContract,
    amount: a.amount,
  });
  emit(env, "deposit", a.depositor, vec(i128(a.amount), i128(minted)));
  return minted;
}

function withdraw(env: Env, a: { depositor: string; shares: bigint }): bigint {
  if (a.shares <= 0n) fail(E.InvalidAmount);
  if (a.depositor === env.currentContract) fail(E.Unauthorized);
  env.requireAuth(a.depositor);
  const rec = S.getDepositor(env, a.depositor) ?? S.emptyDepositor();
  if (a.shares > rec.shares) fail(E.InsufficientShares);
  const now = env.ledger.timestamp;
  const stillLocked = now < rec.unlock_at ? rec.locked_shares : 0n;
  if (a.shares > rec.shares - stillLocked) fail(E.WithdrawCooldown);

  const st = S.getState(env);
  const amount = sharesToAssets(st, a.shares);
  if (amount === 0n) fail(E.ZeroPayout);
  // Only idle capital can leave: a typed error instead of a token-transfer failure.
  if (amount > st.total_usdc - st.active_liq) fail(E.InsufficientLiquidity);

  rec.shares = sub(rec.shares, a.shares);
  rec.locked_shares = stillLocked;
  rec.withdrawn = add(rec.withdrawn, amount);
  S.setDepositor(env, a.depositor, rec);
  st.total_shares = sub(st.total_shares, a.shares);
  st.total_usdc = sub(st.total_usdc, amount);
  S.setState(env, st);
  S.bumpInstance(env);

  env.call(S.getUsdc(env), "transfer", {
    from: env.currentContract,
    to: a.depositor,
    amount,
  });
  emit(env, "withdraw", a.depositor, vec(i128(a.shares), i128(amount)));
  return amount;
}

function draw(env: Env, a: { keeper: string; amount: bigint }): bigint {
  const registry = mustGetRegistry(env);
  if (a.amount < 0n) fail(E.InvalidAmount);
  env.requireAuth(a.keeper);
  // Registration check before any transfer; NotRegistered from the registry reverts the
  // whole draw. The returned record is discarded (stake checks live in mark_draw).
  env.call(registry, "get_keeper", { operator: a.keeper });
  const prev = S.getDraw(env, a.keeper);
  if (a.amount === 0n) return prev;

  const st = S.getState(env);
  if (a.amount > st.total_usdc - st.active_liq) fail(E.InsufficientLiquidity);
  const cfg = S.getConfig(env);
  const outstanding = add(prev, a.amount);
  // The cap applies to the keeper's cumulative outstanding draws, not to one call.
  if (outstanding > cfg.max_draw_per_keeper) fail(E.DrawLimitExceeded);

  S.setDraw(env, a.keeper, outstanding);
  st.active_liq = add(st.active_liq, a.amount);
  S.setState(env, st);
  S.bumpInstance(env);

  env.call(S.getUsdc(env), "transfer", {
    from: env.currentContract,
    to: a.keeper,
    amount: a.amount,
  });
  env.call(registry, "mark_draw", { caller: env.currentContract, keeper: a.keeper });
  emit(env, "draw", a.keeper, vec(i128(a.amount), i128(outstanding)));
  return outstanding;
}

/**
 * Clears a keeper's whole outstanding draw (`drawn`) against the USDC that came back for it
 * (`received`: proceeds returned, or a slashed stake): a surplus is booked as profit, a
 * shortfall is a realized loss shared by all depositors (the documented loss path of the
 * share price).
 */
function settleDraw(
  env: Env,
  keeper: string,
  drawn: bigint,
  received: bigint,
): { gain: bigint; loss: bigint } {
  const gain = received > drawn ? received - drawn : 0n;
  const loss = drawn > received ? drawn - received : 0n;
  const st = S.getState(env);
  st.active_liq = sub(st.active_liq, drawn);
  st.total_usdc = sub(add(st.total_usdc, gain), loss);
  st.total_profit = add(st.total_profit, gain);
  S.setState(env, st);
  if (loss > 0n) S.setLoss(env, add(S.getLoss(env), loss));
  S.setDraw(env, keeper, 0n);
  S.bumpInstance(env);
  return { gain, loss };
}

function return_proceeds(
  env: Env,
  a: { keeper: string; amount: bigint; response_time_ms: bigint },
): bigint {
  const registry = mustGetRegistry(env);
  if (a.amount < 0n) fail(E.InvalidAmount);
  env.requireAuth(a.keeper);
  const drawn = S.getDraw(env, a.keeper);
  // Returning nothing against nothing is not an operation.
  if (a.amount === 0n && drawn === 0n) fail(E.InvalidAmount);

  // The draw is settled in full (spec: any return clears it).
  const { gain: profit, loss } = settleDraw(env, a.keeper, drawn, a.amount);

  if (a.amount > 0n) {
    env.call(S.getUsdc(env), "transfer", {
      from: a.keeper,
      to: env.currentContract,
      amount: a.amount,
    });
  }
  if (drawn > 0n) {
    env.call(registry, "clear_draw", { caller: env.currentContract, keeper: a.keeper });
    env.call(registry, "record_execution", {
      caller: env.currentContract,
      keeper: a.keeper,
      success: true,
      profit,
      response_time_ms: a.response_time_ms,
    });
  }
  emit(env, "return", a.keeper, vec(i128(a.amount), i128(drawn), i128(profit), i128(loss)));
  return profit;
}

function book_slash(env: Env, a: { caller: string; keeper: string; amount: bigint }): bigint {
  const registry = mustGetRegistry(env);
  if (a.caller !== registry) fail(E.Unauthorized);
  env.requireAuth(a.caller);
  if (a.amount < 0n) fail(E.InvalidAmount);
  // The registry has already transferred `amount` to the vault. The keeper's outstanding draw
  // is written off; the slashed stake offsets it. Net effect on total_usdc: amount - outstanding.
  const outstanding = S.getDraw(env, a.keeper);
  const { loss } = settleDraw(env, a.keeper, outstanding, a.amount);
  emit(env, "slash", a.keeper, vec(i128(a.amount), i128(outstanding), i128(loss)));
  return outstanding;
}

function balance(env: Env, a: { depositor: string }): DepositorBalance {
  const rec = S.getDepositor(env, a.depositor);
  const shares = rec?.shares ?? 0n;
  return { shares, usdc_value: sharesToAssets(S.getState(env), shares) };
}

/** The vault contract module. */
export const vaultContract: ContractModule = {
  name: "vault",
  spec: VAULT_SPEC,
  functions: {
    __constructor,
    set_registry,
    set_config,
    deposit,
    withdraw,
    draw,
    return_proceeds,
    book_slash,
    get_state: (env: Env) => S.getState(env),
    get_config: (env: Env) => S.getConfig(env),
    get_depositor: (env: Env, a: { depositor: string }): Depositor =>
      S.getDepositor(env, a.depositor) ?? S.emptyDepositor(),
    balance,
    get_keeper_draw: (env: Env, a: { keeper: string }) => S.getDraw(env, a.keeper),
    get_registry: (env: Env) => S.getRegistry(env) ?? null,
    get_usdc: (env: Env) => S.getUsdc(env),
    get_admin: (env: Env) => S.getAdmin(env),
    get_total_loss: (env: Env) => S.getLoss(env),
  },
};
