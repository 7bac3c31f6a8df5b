/**
 * Vigil's vault: pooled USDC deposits with share accounting and keeper flash loans.
 * See `contracts/README.md` for the full contract documentation.
 *
 * Books: `total_usdc` (owned capital), `total_shares`, `total_profit`, `active_liq` (always 0:
 * a flash is repaid inside its own invocation). After every call the vault's USDC token balance
 * is at least `total_usdc` (unsolicited token transfers are never counted).
 *
 * Rules beyond the spec (documented in the README):
 * - Shares: deposit mints floor(amount·S/U), withdraw pays floor(shares·U/S): both round toward
 *   the pool. The first deposit mints 1:1 and locks MIN_LIQUIDITY of those shares in the
 *   vault's own depositor record forever (the share-inflation defence, with ZeroShares).
 * - Only three flows move funds: deposit (in), withdraw (out), flash (out to a registered
 *   keeper and at least as much back in the same invocation). No admin path moves funds; the
 *   admin changes bounded configuration only.
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

/**
 * `flash`: lends `amount` to the keeper account, calls the keeper's executor, and requires the
 * vault's USDC balance to be no lower afterwards (see contracts/README.md, "Flash").
 */
function flash(
  env: Env,
  a: {
    keeper: string;
    executor: string;
    amount: bigint;
    data: xdr.ScVal;
    response_time_ms: bigint;
  },
): bigint {
  // 1. Wiring, amount, keeper auth.
  const registry = mustGetRegistry(env);
  if (a.amount <= 0n) fail(E.InvalidAmount);
  env.requireAuth(a.keeper);
  // 2. Registration (NotRegistered from the registry reverts) and the current stake rule.
  const info = env.call<{ stake: bigint }>(registry, "get_keeper", { operator: a.keeper });
  const regCfg = env.call<{ min_stake: bigint }>(registry, "get_config", {});
  if (info.stake < regCfg.min_stake) fail(E.StakeBelowMinimum);
  // 3. Liquidity and the per-flash cap.
  const st = S.getState(env);
  if (a.amount > st.total_usdc - st.active_liq) fail(E.InsufficientLiquidity);
  if (a.amount > S.getConfig(env).max_draw_per_keeper) fail(E.DrawLimitExceeded);
  // 4. Lend to the authenticated keeper ACCOUNT (never to the executor): every transfer the
  //    executor makes with this money needs the keeper's own signature.
  const usdc = S.getUsdc(env);
  const self = env.currentContract;
  const before = env.call<bigint>(usdc, "balance", { id: self });
  env.call(usdc, "transfer", { from: self, to: a.keeper, amount: a.amount });
  // 5. The keeper-chosen executor (positional: the vault does not know its parameter names).
  //    It cannot call back into the vault: the host refuses re-entry.
  env.call(a.executor, "exec", [a.keeper, self, usdc, a.amount, a.data]);
  // 6. The only thing the vault trusts: its own balance.
  const after = env.call<bigint>(usdc, "balance", { id: self });
  if (after < before) fail(E.FlashNotRepaid);
  // 7. Everything above the loan is depositors' profit (no keeper share).
  const profit = after - before;
  const st2 = S.getState(env);
  st2.total_usdc = add(st2.total_usdc, profit);
  st2.total_profit = add(st2.total_profit, profit);
  S.setState(env, st2);
  S.bumpInstance(env);
  // 8. Counters (only a settled flash gets here).
  env.call(registry, "record_execution", {
    caller: self,
    keeper: a.keeper,
    success: true,
    profit,
    response_time_ms: a.response_time_ms,
  });
  // 9.
  emit(
    env,
    "flash",
    a.keeper,
    vec(i128(a.amount), i128(add(a.amount, profit)), i128(profit), addr(a.executor)),
  );
  return profit;
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
    flash,
    get_state: (env: Env) => S.getState(env),
    get_config: (env: Env) => S.getConfig(env),
    get_depositor: (env: Env, a: { depositor: string }): Depositor =>
      S.getDepositor(env, a.depositor) ?? S.emptyDepositor(),
    balance,
    get_registry: (env: Env) => S.getRegistry(env) ?? null,
    get_usdc: (env: Env) => S.getUsdc(env),
    get_admin: (env: Env) => S.getAdmin(env),
    get_total_loss: (env: Env) => S.getLoss(env),
  },
};
