/**
 * The keeper's clients of Vigil's vault and registry, over Soroban RPC: the generated clients
 * (`@vigil/contracts/clients`: types, and the spec codec over `soroban/tx.ts`) plus what the keeper
 * adds (the flash's authorization shape and profit floor, paged keeper lists).
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
  FlashUnprofitableError,
  type VaultClient,
} from "./adapters/adapter.ts";
import {
  type ArgsOf,
  type FlashPolicy,
  invokeCall,
  type KeeperInfo,
  REGISTRY_CODEC,
  type RegistryConfig,
  type RegistryFunctions,
  type ResultOf,
  simulateCall,
  VAULT_CODEC,
  type VaultConfig,
  type VaultFunctions,
  type VaultState,
} from "@vigil/contracts/clients";
import { MAX_KEEPERS_PAGE } from "@vigil/contracts/registry/spec";
import { argsOf, type AuthShape, call, is, sacTransfer } from "@vigil/soroban/auth_guard";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { sv } from "@vigil/soroban/scval";
import type { InvokeOptions, InvokeResult } from "@vigil/soroban/tx";

export { type FlashPolicy, FlashUnprofitableError, type VaultConfig, type VaultState };

/** A queued flash policy or config (`PendingFlashPolicy` / `PendingConfig`). */
export interface PendingChange<T> {
  /** Ledger time (s) from which it is in force. */
  appliesAt: bigint;
  value: T;
}

/** The registry's `get_keepers` page size (its maximum). */
export const KEEPERS_PAGE = MAX_KEEPERS_PAGE;

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

  #flashArgs(
    executor: string,
    amount: bigint,
    data: xdr.ScVal,
    responseTimeMs: number,
  ): [string, string, bigint, xdr.ScVal, bigint] {
    return [
      this.#keypair.publicKey(),
      executor,
      amount,
      data,
      BigInt(Math.max(0, Math.round(responseTimeMs))),
    ];
  }

  /** Simulates `flash(keeper, executor, amount, data, response_time_ms)`: the profit it would book. */
  async simulateFlash(
    executor: string,
    amount: bigint,
    data: xdr.ScVal,
    responseTimeMs: number,
  ): Promise<bigint> {
    const r = await simulateCall(
      this.#chain,
      this.id,
      VAULT_CODEC,
      "flash",
      this.#flashArgs(executor, amount, data, responseTimeMs),
      this.#keypair.publicKey(),
    );
    return r.value;
  }

  /** The vault's USDC contract (`get_usdc`, read once). */
  usdc(): Promise<string> {
    this.#usdc ??= this.#view("get_usdc", []);
    this.#usdc.catch(() => (this.#usdc = undefined)); // read again next time
    return this.#usdc;
  }

  /**
   * `flash(keeper, executor, amount, data, response_time_ms)` in one transaction signed by the
   * keeper (the source account, so its signature covers every nested call recorded for it:
   * only those {@link flashAuthShape} allows are accepted). With `opts.channel` the channel
   * account is the source instead, and the keeper signs only the recorded authorization entries
   * for its address, held to the same shape. Sent only when the simulated profit reaches
   * `minProfit` (default 1).
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
    const r = await invokeCall(
      this.#chain,
      this.#keypair,
      this.id,
      VAULT_CODEC,
      "flash",
      this.#flashArgs(executor, amount, data, responseTimeMs),
      {
        ...this.#invoke,
        auth,
        account: opts.account,
        source: opts.channel,
        beforeSend: (sim) => {
          const p = VAULT_CODEC.result("flash", sim.retval);
          if (p < min) throw new FlashUnprofitableError(p, min);
        },
        feeFromSimulation: opts.feeForProfit &&
          ((sim) => opts.feeForProfit!(VAULT_CODEC.result("flash", sim.retval))),
      },
    );
    return { profit: r.value ?? 0n, txHash: r.result.hash, ledger: r.result.ledger };
  }

  /** A read-only vault call (simulated). */
  async #view<K extends keyof VaultFunctions & string>(
    fn: K,
    args: ArgsOf<VaultFunctions, K>,
  ): Promise<ResultOf<VaultFunctions, K>> {
    return (await simulateCall(this.#chain, this.id, VAULT_CODEC, fn, args)).value;
  }

  /** `get_state()`, with the ledger it was read at. */
  async getState(): Promise<VaultState & { ledger: number }> {
    const r = await simulateCall(this.#chain, this.id, VAULT_CODEC, "get_state", []);
    return { ...r.value, ledger: r.sim.latestLedger };
  }

  /** `get_config()`. */
  getConfig(): Promise<VaultConfig> {
    return this.#view("get_config", []);
  }

  /** `get_flash_policy()`: the policy in force (a queued one applies at its time, lazily). */
  getFlashPolicy(): Promise<FlashPolicy> {
    // A flash follows: have the vault's USDC (for its authorization shape) read by then.
    this.usdc().catch(() => {});
    return this.#view("get_flash_policy", []);
  }

  /** `get_pending_flash_policy()`: the queued policy and when it applies, or null. */
  async getPendingFlashPolicy(): Promise<PendingChange<FlashPolicy> | null> {
    const v = await this.#view("get_pending_flash_policy", []);
    return v ? { appliesAt: v.applies_at, value: v.policy } : null;
  }

  /** `get_pending_config()`: the queued config and when it applies, or null. */
  async getPendingConfig(): Promise<PendingChange<VaultConfig> | null> {
    const v = await this.#view("get_pending_config", []);
    return v ? { appliesAt: v.applies_at, value: v.config } : null;
  }

  /** `balance(depositor)` → shares and their USDC value. */
  async balance(depositor: string): Promise<{ shares: bigint; usdcValue: bigint }> {
    const v = await this.#view("balance", [depositor]);
    return { shares: v.shares, usdcValue: v.usdc_value };
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
    const auth: AuthShape = {
      subs: [
        sacTransfer(config.usdc_token, me, is.address(this.id, "the registry"), config.min_stake),
      ],
    };
    const r = await invokeCall(this.#chain, keypair, this.id, REGISTRY_CODEC, "register", [
      me,
      name,
    ], { ...this.#invoke, auth });
    return r.result;
  }

  /** A read-only registry call (simulated). */
  async #view<K extends keyof RegistryFunctions & string>(
    fn: K,
    args: ArgsOf<RegistryFunctions, K>,
  ): Promise<ResultOf<RegistryFunctions, K>> {
    return (await simulateCall(this.#chain, this.id, REGISTRY_CODEC, fn, args)).value;
  }

  /** `get_keeper_count()`: registered operators (the registry has no cap). */
  getKeeperCount(): Promise<number> {
    return this.#view("get_keeper_count", []);
  }

  /** `get_keepers(start, limit)`: one page of operators (at most {@link KEEPERS_PAGE}). */
  getKeepers(start = 0, limit = KEEPERS_PAGE): Promise<string[]> {
    return this.#view("get_keepers", [start, Math.min(limit, KEEPERS_PAGE)]);
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

  /** `get_keeper(operator)`: the keeper's record (throws NotRegistered). */
  getKeeper(operator: string): Promise<KeeperInfo> {
    return this.#view("get_keeper", [operator]);
  }

  /** `get_config()`. */
  getConfig(): Promise<RegistryConfig> {
    return this.#view("get_config", []);
  }
}
