/**
 * The keeper's clients of Vigil's vault and registry, over Soroban RPC.
 *
 * Adapters never see this class: they get {@link VaultContract.forTask}, a
 * {@link VaultClient} with only `draw` and `returnProceeds`, which also tallies what the task
 * drew and returned so the cycle can tell when an adapter left a draw outstanding.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import type { VaultClient } from "./adapters/adapter.ts";
import type { ChainRpc } from "./chain/rpc.ts";
import { big, native, sv } from "./chain/scval.ts";
import { invokeContract, type InvokeOptions, type InvokeResult, simulateRead } from "./chain/tx.ts";

/** VaultState (spec field names, bigint amounts). */
export interface VaultState {
  total_usdc: bigint;
  total_shares: bigint;
  total_profit: bigint;
  active_liq: bigint;
}

/** VaultConfig (spec field names). */
export interface VaultConfig {
  deposit_cap: bigint;
  withdraw_cooldown: bigint;
  max_draw_per_keeper: bigint;
}

/** What one task did with vault capital. */
export interface TaskTally {
  drawn: bigint;
  returned: bigint;
  /** Draws not yet settled by a returnProceeds. */
  open: boolean;
  txHashes: string[];
}

/** Vault calls signed by the keeper. */
export class VaultContract {
  readonly id: string;
  readonly #chain: ChainRpc;
  readonly #keypair: Keypair;
  readonly #invoke: InvokeOptions;
  #methods: Promise<Set<string> | undefined> | undefined;

  constructor(chain: ChainRpc, keypair: Keypair, vaultId: string, invoke: InvokeOptions = {}) {
    this.id = vaultId;
    this.#chain = chain;
    this.#keypair = keypair;
    this.#invoke = invoke;
  }

  /** `draw(keeper, amount)`. */
  draw(amount: bigint): Promise<InvokeResult> {
    return invokeContract(this.#chain, this.#keypair, this.id, "draw", [
      sv.address(this.#keypair.publicKey()),
      sv.i128(amount),
    ], this.#invoke);
  }

  /** `return_proceeds(keeper, amount, response_time_ms)`. */
  returnProceeds(amount: bigint, responseTimeMs: number): Promise<InvokeResult> {
    return invokeContract(this.#chain, this.#keypair, this.id, "return_proceeds", [
      sv.address(this.#keypair.publicKey()),
      sv.i128(amount),
      sv.u64(BigInt(Math.max(0, Math.round(responseTimeMs)))),
    ], this.#invoke);
  }

  /** `get_keeper_draw(keeper)`: the outstanding draw (accepts an i128, a tuple or a struct). */
  async getKeeperDraw(keeper = this.#keypair.publicKey()): Promise<bigint> {
    const r = await simulateRead(this.#chain, this.id, "get_keeper_draw", [sv.address(keeper)]);
    return drawAmount(native(r.retval));
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
      ledger: r.latestLedger,
    };
  }

  /** `get_config()`. */
  async getConfig(): Promise<VaultConfig> {
    const r = await simulateRead(this.#chain, this.id, "get_config");
    const v = native<Record<string, unknown>>(r.retval);
    return {
      deposit_cap: big(v.deposit_cap),
      withdraw_cooldown: big(v.withdraw_cooldown),
      max_draw_per_keeper: big(v.max_draw_per_keeper),
    };
  }

  /** `balance(depositor)` → shares and USDC value (accepts a struct or a tuple). */
  async balance(depositor: string): Promise<{ shares: bigint; usdcValue: bigint }> {
    const r = await simulateRead(this.#chain, this.id, "balance", [sv.address(depositor)]);
    const v = native<unknown>(r.retval);
    if (Array.isArray(v)) return { shares: big(v[0]), usdcValue: big(v[1]) };
    const o = v as Record<string, unknown>;
    return { shares: big(o.shares), usdcValue: big(o.usdc_value ?? o.usdcValue ?? 0n) };
  }

  /**
   * Whether the vault exposes `fn` (read once from its contract spec; an older vault may lack
   * `get_keeper_draw`). Undefined when the spec cannot be read.
   */
  async hasFunction(fn: string): Promise<boolean | undefined> {
    this.#methods ??= this.#chain.server.getContractMethods(this.id, this.#chain.networkPassphrase)
      .then((ms) => new Set(ms.map((m) => m.name)), () => undefined);
    const m = await this.#methods;
    if (m === undefined) this.#methods = undefined; // try again next time
    return m?.has(fn);
  }

  /** A task-scoped {@link VaultClient} (draw/returnProceeds only) and its tally. */
  forTask(): { client: VaultClient; tally: TaskTally } {
    const tally: TaskTally = { drawn: 0n, returned: 0n, open: false, txHashes: [] };
    const client: VaultClient = {
      draw: async (amount: bigint) => {
        const r = await this.draw(amount);
        tally.drawn += amount;
        tally.open = true;
        tally.txHashes.push(r.hash);
      },
      returnProceeds: async (amount: bigint, responseTimeMs: number) => {
        const r = await this.returnProceeds(amount, responseTimeMs);
        tally.returned += amount;
        tally.open = false;
        tally.txHashes.push(r.hash);
      },
    };
    return { client, tally };
  }
}

/** The outstanding amount from whatever `get_keeper_draw` returns. */
export function drawAmount(v: unknown): bigint {
  if (v === null || v === undefined) return 0n;
  if (typeof v === "bigint" || typeof v === "number") return big(v);
  if (Array.isArray(v)) return v.length ? big(v[0]) : 0n;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return big(o.amount ?? o.drawn ?? 0n);
  }
  return 0n;
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

  /** `register(operator, name)`, signed by the operator. */
  register(keypair: Keypair, name: string): Promise<InvokeResult> {
    return invokeContract(this.#chain, keypair, this.id, "register", [
      sv.address(keypair.publicKey()),
      sv.string(name),
    ], this.#invoke);
  }

  /** `get_keepers()`. */
  async getKeepers(): Promise<string[]> {
    const r = await simulateRead(this.#chain, this.id, "get_keepers");
    return native<string[]>(r.retval) ?? [];
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
