/**
 * The keeper's clients of Vigil's vault and registry, over Soroban RPC.
 *
 * Adapters never see this class: they get {@link VaultContract.client}, a {@link VaultClient}
 * with only `flash`, `simulateFlash` and `flashPolicy` (issue 12: capital leaves the vault only inside one
 * flash transaction, so there is nothing to tally or recover between transactions).
 *
 * @module
 */
import type { Keypair, xdr } from "@stellar/stellar-sdk";
import {
  type FlashOptions,
  type FlashOutcome,
  type FlashPolicy,
  FlashUnprofitableError,
  type VaultClient,
} from "./adapters/adapter.ts";
import { argsOf, type AuthShape, call, is, sacTransfer } from "@vigil/soroban/auth_guard";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { big, native, sv } from "@vigil/soroban/scval";
import {
  invokeContract,
  type InvokeOptions,
  type InvokeResult,
  simulateRead,
} from "@vigil/soroban/tx";

export { type FlashPolicy, FlashUnprofitableError };

/** VaultState (spec field names, bigint amounts). */
export interface VaultState {
  /** The vault's USDC, the profit still locked included. */
  total_usdc: bigint;
  total_shares: bigint;
  total_profit: bigint;
  active_liq: bigint;
  /** Flash profit not yet in the share price (unlocks linearly until `unlock_end`). */
  locked_profit: bigint;
  /** Ledger time (s) when `locked_profit` reaches 0; 0 when nothing is locked. */
  unlock_end: bigint;
}

/** VaultConfig (spec field names). */
export interface VaultConfig {
  deposit_cap: bigint;
  withdraw_cooldown: bigint;
  max_draw_per_keeper: bigint;
  /** Least profit for a flash to count as the keeper's successful fill in the registry. */
  min_fill_profit: bigint;
  /** Seconds a queued policy/config change waits. */
  policy_delay: bigint;
  /** Seconds over which a flash's profit enters the share price. */
  profit_unlock_secs: bigint;
}

/** A queued flash policy or config (`PendingFlashPolicy` / `PendingConfig`). */
export interface PendingChange<T> {
  /** Ledger time (s) from which it is in force. */
  appliesAt: bigint;
  value: T;
}

/** The registry's `get_keepers` page size (its maximum). */
export const KEEPERS_PAGE = 100;

/** Parses a `VaultConfig` struct. */
function parseVaultConfig(v: unknown): VaultConfig {
  const o = v as Record<string, unknown>;
  return {
    deposit_cap: big(o.deposit_cap),
    withdraw_cooldown: big(o.withdraw_cooldown),
    max_draw_per_keeper: big(o.max_draw_per_keeper),
    min_fill_profit: big(o.min_fill_profit),
    policy_delay: big(o.policy_delay),
    profit_unlock_secs: big(o.profit_unlock_secs),
  };
}

/** Parses a `FlashPolicy` struct. */
function parseFlashPolicy(v: unknown): FlashPolicy {
  const o = v as Record<string, unknown>;
  const list = (x: unknown) => (Array.isArray(x) ? x.map(String) : []);
  return {
    executors: list(o.executors),
    max_slippage_bps: Number(o.max_slippage_bps),
    pools: list(o.pools),
    routers: list(o.routers),
    tokens: list(o.tokens),
  };
}

/** The facts of one flash, for {@link flashAuthShape}. */
export interface FlashCall {
  keeper: string;
  vault: string;
  /** The vault's USDC (`get_usdc`). */
  usdc: string;
  executor: string;
  amount: bigint;
  data: xdr.ScVal;
}

/**
 * What a flash may ask the keeper to authorize beneath its root `flash(…)`: the vault's own
 * call `executor.exec(keeper, vault, usdc, amount, data, policy)` (the policy is the vault's to
 * pass), and beneath it only `execAuth`, the executor's planned calls.
 */
export function flashAuthShape(f: FlashCall, execAuth: AuthShape): AuthShape {
  const exec = call(
    f.executor,
    "exec",
    argsOf(
      ["keeper", is.address(f.keeper, "the keeper")],
      ["vault", is.address(f.vault, "the vault")],
      ["usdc", is.address(f.usdc, "the vault's USDC")],
      ["amount", is.value(sv.i128(f.amount))],
      ["data", is.value(f.data)],
      ["policy", is.any()],
    ),
    { subs: execAuth.subs },
  );
  return { subs: [exec] };
}

/** Vault calls signed by the keeper. */
export class VaultContract {
  readonly id: string;
  readonly #chain: ChainRpc;
  readonly #keypair: Keypair;
  readonly #invoke: InvokeOptions;
  #methods: Promise<Set<string> | undefined> | undefined;
  #usdc: Promise<string> | undefined;

  constructor(chain: ChainRpc, keypair: Keypair, vaultId: string, invoke: InvokeOptions = {}) {
    this.id = vaultId;
    this.#chain = chain;
    this.#keypair = keypair;
    this.#invoke = invoke;
  }

  #flashArgs(executor: string, amount: bigint, data: xdr.ScVal, responseTimeMs: number) {
    return [
      sv.address(this.#keypair.publicKey()),
      sv.address(executor),
      sv.i128(amount),
      data,
      sv.u64(BigInt(Math.max(0, Math.round(responseTimeMs)))),
    ];
  }

  /** Simulates `flash(keeper, executor, amount, data, response_time_ms)`: the profit it would book. */
  async simulateFlash(
    executor: string,
    amount: bigint,
    data: xdr.ScVal,
    responseTimeMs: number,
  ): Promise<bigint> {
    const r = await simulateRead(
      this.#chain,
      this.id,
      "flash",
      this.#flashArgs(executor, amount, data, responseTimeMs),
      this.#keypair.publicKey(),
    );
    return big(native(r.retval));
  }

  /** The vault's USDC contract (`get_usdc`, read once). */
  usdc(): Promise<string> {
    this.#usdc ??= simulateRead(this.#chain, this.id, "get_usdc").then((r) => native(r.retval));
    this.#usdc.catch(() => (this.#usdc = undefined)); // read again next time
    return this.#usdc;
  }

  /**
   * `flash(keeper, executor, amount, data, response_time_ms)` in one transaction signed by the
   * keeper (the source account, so its signature covers every nested call recorded for it:
   * only those {@link flashAuthShape} allows are accepted). Sent only when the simulated profit
   * reaches `minProfit` (default 1).
   */
  async flash(
    executor: string,
    amount: bigint,
    data: xdr.ScVal,
    responseTimeMs: number,
    opts: FlashOptions,
  ): Promise<FlashOutcome> {
    const min = opts.minProfit ?? 1n;
    const auth = flashAuthShape({
      keeper: this.#keypair.publicKey(),
      vault: this.id,
      usdc: await this.usdc(),
      executor,
      amount,
      data,
    }, opts.auth);
    const r = await invokeContract(
      this.#chain,
      this.#keypair,
      this.id,
      "flash",
      this.#flashArgs(executor, amount, data, responseTimeMs),
      {
        ...this.#invoke,
        auth,
        account: opts.account,
        beforeSend: (sim) => {
          const p = big(native(sim.retval));
          if (p < min) throw new FlashUnprofitableError(p, min);
        },
      },
    );
    return {
      profit: r.returnValue ? big(native(r.returnValue)) : 0n,
      txHash: r.hash,
      ledger: r.ledger,
    };
  }

  /** `get_state()`. */
  async getState(): Promise<VaultState & { ledger: number }> {
    const r = await simulateRead(this.#chain, this.id, "get_state");
    const v = native<Record<string, unknown>>(r.retval);
    return {
      total_usdc: big(v.total_usdc),
      total_shares: big(v.total_shares),
      total_profit: big(v.total_profit),
      active_liq: big(v.active_liq),
      locked_profit: big(v.locked_profit),
      unlock_end: big(v.unlock_end),
      ledger: r.latestLedger,
    };
  }

  /** `get_config()`. */
  async getConfig(): Promise<VaultConfig> {
    const r = await simulateRead(this.#chain, this.id, "get_config");
    return parseVaultConfig(native<Record<string, unknown>>(r.retval));
  }

  /** `get_flash_policy()`: the policy in force (a queued one applies at its time, lazily). */
  async getFlashPolicy(): Promise<FlashPolicy> {
    // A flash follows: have the vault's USDC (for its authorization shape) read by then.
    this.usdc().catch(() => {});
    const r = await simulateRead(this.#chain, this.id, "get_flash_policy");
    return parseFlashPolicy(native<Record<string, unknown>>(r.retval));
  }

  /** `get_pending_flash_policy()`: the queued policy and when it applies, or null. */
  async getPendingFlashPolicy(): Promise<PendingChange<FlashPolicy> | null> {
    const r = await simulateRead(this.#chain, this.id, "get_pending_flash_policy");
    const v = native<Record<string, unknown> | null | undefined>(r.retval);
    return v ? { appliesAt: big(v.applies_at), value: parseFlashPolicy(v.policy) } : null;
  }

  /** `get_pending_config()`: the queued config and when it applies, or null. */
  async getPendingConfig(): Promise<PendingChange<VaultConfig> | null> {
    const r = await simulateRead(this.#chain, this.id, "get_pending_config");
    const v = native<Record<string, unknown> | null | undefined>(r.retval);
    return v ? { appliesAt: big(v.applies_at), value: parseVaultConfig(v.config) } : null;
  }

  /** `balance(depositor)` → shares and USDC value (accepts a struct or a tuple). */
  async balance(depositor: string): Promise<{ shares: bigint; usdcValue: bigint }> {
    const r = await simulateRead(this.#chain, this.id, "balance", [sv.address(depositor)]);
    const v = native<unknown>(r.retval);
    if (Array.isArray(v)) return { shares: big(v[0]), usdcValue: big(v[1]) };
    const o = v as Record<string, unknown>;
    return { shares: big(o.shares), usdcValue: big(o.usdc_value ?? o.usdcValue ?? 0n) };
  }

  /** Whether the vault exposes `fn` (read once from its contract spec); undefined when unreadable. */
  async hasFunction(fn: string): Promise<boolean | undefined> {
    this.#methods ??= this.#chain.server.getContractMethods(this.id, this.#chain.networkPassphrase)
      .then((ms) => new Set(ms.map((m) => m.name)), () => undefined);
    const m = await this.#methods;
    if (m === undefined) this.#methods = undefined; // try again next time
    return m?.has(fn);
  }

  /** The {@link VaultClient} handed to adapters (flash, simulateFlash and flashPolicy only). */
  client(): VaultClient {
    return {
      flash: (executor, amount, data, rt, opts) => this.flash(executor, amount, data, rt, opts),
      simulateFlash: (executor, amount, data, rt) => this.simulateFlash(executor, amount, data, rt),
      flashPolicy: () => this.getFlashPolicy(),
    };
  }
}

/** Registry calls. */
export class RegistryContract {
  readonly id: string;
  readonly #chain: ChainRpc;
  readonly #invoke: InvokeOptions;

  constructor(chain: ChainRpc, registryId: string, invoke: InvokeOptions = {}) {
    this.id = registryId;
    this.#chain = chain;
    this.#invoke = invoke;
  }

  /**
   * `register(operator, name)`, signed by the operator. Its only nested authorization is the
   * stake: `usdc_token.transfer(operator, registry, min_stake)` with the registry's own
   * configuration (read first).
   */
  async register(keypair: Keypair, name: string): Promise<InvokeResult> {
    const me = keypair.publicKey();
    const config = await this.getConfig();
    const stake = big(config.min_stake);
    const usdc = String(config.usdc_token);
    const auth: AuthShape = {
      subs: [sacTransfer(usdc, me, is.address(this.id, "the registry"), stake)],
    };
    return invokeContract(this.#chain, keypair, this.id, "register", [
      sv.address(me),
      sv.string(name),
    ], { ...this.#invoke, auth });
  }

  /** `get_keeper_count()`: registered operators (the registry has no cap). */
  async getKeeperCount(): Promise<number> {
    const r = await simulateRead(this.#chain, this.id, "get_keeper_count");
    return Number(native<number>(r.retval));
  }

  /** `get_keepers(start, limit)`: one page of operators (at most {@link KEEPERS_PAGE}). */
  async getKeepers(start = 0, limit = KEEPERS_PAGE): Promise<string[]> {
    const r = await simulateRead(this.#chain, this.id, "get_keepers", [
      sv.u32(start),
      sv.u32(Math.min(limit, KEEPERS_PAGE)),
    ]);
    return (native<string[]>(r.retval) ?? []).map(String);
  }

  /**
   * The first `max` operators in registration order (pages read concurrently) and how many are
   * registered. A deregistration between pages swap-removes: the list is deduplicated.
   */
  async listKeepers(max = Infinity): Promise<{ addresses: string[]; total: number }> {
    const total = await this.getKeeperCount();
    const want = Math.min(total, max);
    const starts: number[] = [];
    for (let s = 0; s < want; s += KEEPERS_PAGE) starts.push(s);
    const pages = await Promise.all(
      starts.map((s) => this.getKeepers(s, Math.min(KEEPERS_PAGE, want - s))),
    );
    return { addresses: [...new Set(pages.flat())], total };
  }

  /** `get_keeper(operator)` as plain data (fields as the contract names them). */
  async getKeeper(operator: string): Promise<Record<string, unknown>> {
    const r = await simulateRead(this.#chain, this.id, "get_keeper", [sv.address(operator)]);
    return native<Record<string, unknown>>(r.retval);
  }

  /** `get_config()`. */
  async getConfig(): Promise<Record<string, unknown>> {
    const r = await simulateRead(this.#chain, this.id, "get_config");
    return native<Record<string, unknown>>(r.retval);
  }
}
