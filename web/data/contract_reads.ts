/**
 * The frontend's chain reads: read-only simulation of the views the spec lists (vault
 * `get_state`, `get_config`, `get_flash_policy`, `get_pending_flash_policy`,
 * `get_pending_config`, `get_admin`, `get_depositor`, `balance`; registry `get_keeper_count`,
 * `get_keepers` (paged), `get_keeper`, `get_config`) plus the USDC token's `balance`, normalized
 * into typed records.
 * Every reader returns `null` instead of throwing when the chain cannot answer, so pages
 * render an em-dash rather than an invented figure; the error is kept for a notice.
 *
 * @module
 */
import {
  ContractCallError,
  type NetworkInfo,
  rpcServer,
  simulateView,
} from "@vigil/soroban/client";
import { type Calls, typedCalls } from "@vigil/contracts/clients/calls";
import {
  type Depositor,
  type DepositorBalance,
  type FlashPolicy,
  VAULT_PARAMS,
  type VaultConfig,
  type VaultFunctions,
  type VaultState,
} from "@vigil/contracts/clients/vault";
import {
  type KeeperInfo,
  REGISTRY_PARAMS,
  type RegistryConfig,
  type RegistryFunctions,
} from "@vigil/contracts/clients/registry";
import { MAX_KEEPERS_PAGE } from "@vigil/contracts/registry/spec";
import {
  Account,
  Address,
  BASE_FEE,
  Contract,
  rpc,
  scValToNative,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { toBigInt } from "./format.ts";
import { ChainClock } from "./clock.ts";

/** Any valid account: a read-only simulation needs a source, never its signature or balance. */
const READ_SOURCE = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF";

/** A queued change (`PendingFlashPolicy` / `PendingConfig`): in force from `applies_at`. */
export interface Pending<T> {
  /** Unix seconds (ledger time). */
  applies_at: bigint;
  value: T;
}

/** The registry's page size: `get_keepers` returns at most this many addresses per call. */
export const KEEPERS_PAGE: number = MAX_KEEPERS_PAGE;

/**
 * A keeper as the pages show it, from the registry's `KeeperInfo` (null renders an em-dash; the
 * average is null without a timed execution).
 */
export interface KeeperRecord {
  address: string;
  name: string | null;
  stake: bigint | null;
  /** Unix seconds. */
  registered_at: bigint | null;
  total_executions: bigint | null;
  successful_fills: bigint | null;
  total_profit: bigint | null;
  /** Null when the keeper has no timed execution (never a fabricated 0). */
  avg_response_time_ms: bigint | null;
}

/** A depositor's position as read from `get_depositor` and `balance`. */
export interface DepositorPosition {
  address: string;
  /** Shares held (0 when the vault has no record of the address). */
  shares: bigint | null;
  /** Current value in USDC units (shares at the current share price, floored). */
  value: bigint | null;
  /** Unix seconds of the last deposit (the cooldown's start), when the record has it. */
  last_deposit_at: bigint | null;
  /** Unix seconds when withdrawal is allowed, when known. */
  unlock_at: bigint | null;
  /** Shares still inside their cooldown (until unlock_at), when the record has it. */
  locked_shares: bigint | null;
  /** Cumulative USDC deposited, when the record has it. */
  deposited: bigint | null;
  /** Cumulative USDC withdrawn, when the record has it. */
  withdrawn: bigint | null;
  /** Whether the vault has a record for this address. */
  exists: boolean;
}

/** A read that may fail: the value, or null and the error message. */
export interface Read<T> {
  value: T | null;
  error: string | null;
}

async function read<T>(p: Promise<T>): Promise<Read<T>> {
  try {
    return { value: await p, error: null };
  } catch (e) {
    return { value: null, error: e instanceof Error ? e.message : String(e) };
  }
}

/** A keeper's page record from its `KeeperInfo`. A zero average with no samples is "unknown", not 0 ms. */
export function keeperRecord(k: KeeperInfo): KeeperRecord {
  return {
    address: k.operator,
    name: k.name,
    stake: k.stake,
    registered_at: k.registered_at,
    total_executions: k.total_executions,
    successful_fills: k.successful_fills,
    total_profit: k.total_profit,
    avg_response_time_ms: k.response_count > 0n
      ? k.total_response_time_ms / k.response_count
      : null,
  };
}

/** A position from `get_depositor` (null: the vault has no record) and `balance`. */
export function depositorPosition(
  address: string,
  record: Depositor | null,
  balance: DepositorBalance,
): DepositorPosition {
  return {
    address,
    shares: record?.shares ?? balance.shares,
    value: balance.usdc_value,
    last_deposit_at: record?.last_deposit_at ?? null,
    unlock_at: record?.unlock_at ?? null,
    locked_shares: record?.locked_shares ?? null,
    deposited: record?.deposited ?? null,
    withdrawn: record?.withdrawn ?? null,
    exists: record !== null && (record.shares > 0n || record.deposited > 0n),
  };
}

/**
 * Reads the vault and registry views by simulation. Arguments are positional (mapped to the
 * parameter names of the contract's own spec), so the reader does not hard-code them.
 */
export class ChainReader {
  readonly #vault: Calls<VaultFunctions>;
  readonly #registry: Calls<RegistryFunctions>;
  /** Every {@link chainTime} reading: the chain clock's rate against this machine's. */
  readonly clock: ChainClock = new ChainClock();

  constructor(
    readonly net: NetworkInfo,
    readonly vault: string | null,
    readonly registry: string | null,
  ) {
    this.#vault = typedCalls<VaultFunctions>(VAULT_PARAMS, (fn, args) => {
      if (!vault) return Promise.reject(new Error("no vault contract configured"));
      return simulateView(net, vault, fn, args);
    });
    this.#registry = typedCalls<RegistryFunctions>(REGISTRY_PARAMS, (fn, args) => {
      if (!registry) return Promise.reject(new Error("no registry contract configured"));
      return simulateView(net, registry, fn, args);
    });
  }

  /** Vault `get_state`. */
  vaultState(): Promise<Read<VaultState>> {
    return read(this.#vault.get_state());
  }

  /** Vault `get_config`. */
  vaultConfig(): Promise<Read<VaultConfig>> {
    return read(this.#vault.get_config());
  }

  /** Registry `get_config`. */
  registryConfig(): Promise<Read<RegistryConfig>> {
    return read(this.#registry.get_config());
  }

  /** Vault `get_flash_policy`: the policy in force. */
  flashPolicy(): Promise<Read<FlashPolicy>> {
    return read(this.#vault.get_flash_policy());
  }

  /** Vault `get_pending_flash_policy`: the queued policy and when it applies, or null. */
  pendingFlashPolicy(): Promise<Read<Pending<FlashPolicy> | null>> {
    return read(
      this.#vault.get_pending_flash_policy().then((p) =>
        p && { applies_at: p.applies_at, value: p.policy }
      ),
    );
  }

  /** Vault `get_pending_config`: the queued config and when it applies, or null. */
  pendingConfig(): Promise<Read<Pending<VaultConfig> | null>> {
    return read(
      this.#vault.get_pending_config().then((p) =>
        p && { applies_at: p.applies_at, value: p.config }
      ),
    );
  }

  /** Vault `get_admin`: the admin, or null once it renounced (no admin function works then). */
  vaultAdmin(): Promise<Read<string | null>> {
    return read(this.#vault.get_admin());
  }

  /** Registry `get_keeper_count`: how many operators are registered (no cap). */
  keeperCount(): Promise<Read<number>> {
    return read(this.#registry.get_keeper_count());
  }

  /** Registry `get_keepers(start, limit)`: one page of addresses (at most {@link KEEPERS_PAGE}). */
  keeperPage(start: number, limit = KEEPERS_PAGE): Promise<Read<string[]>> {
    return read(this.#registry.get_keepers(start, Math.min(limit, KEEPERS_PAGE)));
  }

  /**
   * Registry addresses in registration order, paged (`get_keeper_count`, then `get_keepers`
   * pages of {@link KEEPERS_PAGE}), at most `max` of them. A deregistration between two pages
   * swap-removes: the list is deduplicated, and one moved keeper may be missed until next read.
   */
  async keeperAddresses(max = Infinity): Promise<Read<{ addresses: string[]; total: number }>> {
    const count = await this.keeperCount();
    if (count.value === null) return { value: null, error: count.error };
    const total = count.value;
    const want = Math.min(total, max);
    const starts: number[] = [];
    for (let s = 0; s < want; s += KEEPERS_PAGE) starts.push(s);
    const pages = await Promise.all(
      starts.map((s) => this.keeperPage(s, Math.min(KEEPERS_PAGE, want - s))),
    );
    const failed = pages.find((p) => p.error);
    if (failed) return { value: null, error: failed.error };
    const addresses = [...new Set(pages.flatMap((p) => p.value ?? []))];
    return { value: { addresses, total }, error: null };
  }

  /** Registry `get_keeper`; a `NotRegistered` error gives `{value: null, error: null}`. */
  async keeper(address: string): Promise<Read<KeeperRecord>> {
    try {
      return { value: keeperRecord(await this.#registry.get_keeper(address)), error: null };
    } catch (e) {
      if (e instanceof ContractCallError && e.caseName === "NotRegistered") {
        return { value: null, error: null };
      }
      return { value: null, error: e instanceof Error ? e.message : String(e) };
    }
  }

  /** `get_keeper` for each address (at most {@link KEEPERS_PAGE} requests at a time). */
  async keeperRecords(addresses: string[]): Promise<Read<KeeperRecord[]>> {
    const recs: Read<KeeperRecord>[] = [];
    for (let i = 0; i < addresses.length; i += KEEPERS_PAGE) {
      const chunk = addresses.slice(i, i + KEEPERS_PAGE);
      recs.push(...await Promise.all(chunk.map((a) => this.keeper(a))));
    }
    const failed = recs.find((r) => r.error);
    if (failed) return { value: null, error: failed.error };
    return { value: recs.flatMap((r) => r.value ? [r.value] : []), error: null };
  }

  /**
   * Registered keepers with their records, in registration order: the first `max` (default
   * all) of `total` registered. The registry has no cap, so pages that list keepers pass a
   * bound and say when more exist.
   */
  async keepers(max = Infinity): Promise<Read<KeeperRecord[]> & { total: number | null }> {
    const addrs = await this.keeperAddresses(max);
    if (addrs.value === null) return { value: null, error: addrs.error, total: null };
    const recs = await this.keeperRecords(addrs.value.addresses);
    return { ...recs, total: addrs.value.total };
  }

  /**
   * A depositor's position: vault `get_depositor` (absent record = no position) and `balance`.
   * `_cooldown` is unused since the vault's record carries `unlock_at`; kept for the callers.
   */
  async depositor(address: string, _cooldown?: bigint | null): Promise<Read<DepositorPosition>> {
    const rec = this.#vault.get_depositor(address).then(
      (v): Depositor | null => v,
      (e) => {
        // No record: the vault's "not found" error.
        if (e instanceof ContractCallError && e.code !== null) return null;
        throw e;
      },
    );
    return await read(
      Promise.all([rec, this.#vault.balance(address)]).then(([r, b]) =>
        depositorPosition(address, r, b)
      ),
    );
  }

  /**
   * USDC `balance(id)` of the token contract (SEP-41), in units. Built by hand rather than from
   * the contract's spec: a Stellar Asset Contract (USDC is one) has no Wasm to read a spec from,
   * so the spec-driven read failed and "Your USDC" showed "—".
   */
  tokenBalance(token: string, address: string): Promise<Read<bigint>> {
    return read((async () => {
      const tx = new TransactionBuilder(new Account(READ_SOURCE, "0"), {
        fee: BASE_FEE,
        networkPassphrase: this.net.passphrase,
      }).addOperation(new Contract(token).call("balance", new Address(address).toScVal()))
        .setTimeout(0).build();
      const sim = await rpcServer(this.net.rpcUrl).simulateTransaction(tx);
      if (rpc.Api.isSimulationError(sim)) throw new Error(`token balance: ${sim.error}`);
      const retval = (sim as rpc.Api.SimulateTransactionSuccessResponse).result?.retval;
      const b = retval ? toBigInt(scValToNative(retval)) : null;
      if (b === null) throw new Error("bad token balance");
      return b;
    })());
  }

  /**
   * The latest ledger's close time (Unix seconds): the clock cooldowns are measured on, and every
   * time on the pages. Each reading is also a sample of {@link clock}.
   */
  chainTime(): Promise<Read<number>> {
    return read(
      rpcServer(this.net.rpcUrl).getLatestLedger().then((l) => {
        const t = Number((l as { closeTime?: unknown }).closeTime);
        if (!Number.isFinite(t) || t <= 0) throw new Error("no close time");
        this.clock.observe({ wall: Date.now(), chain: t, seq: l.sequence });
        return t;
      }),
    );
  }
}
