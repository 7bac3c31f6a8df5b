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
import { toBigInt } from "./format.ts";

/** `VaultState` (spec). */
export interface VaultState {
  /** Everything the vault holds, the profit still locked included. */
  total_usdc: bigint;
  total_shares: bigint;
  total_profit: bigint;
  active_liq: bigint;
  /** Recent flash profit not yet in the share price; it unlocks linearly until `unlock_end`. */
  locked_profit: bigint;
  /** Unix seconds (ledger time) when `locked_profit` reaches 0; 0 when nothing is locked. */
  unlock_end: bigint;
}

/** `VaultConfig` (spec). */
export interface VaultConfig {
  deposit_cap: bigint;
  /** Seconds. */
  withdraw_cooldown: bigint;
  max_draw_per_keeper: bigint;
  /** Least profit for a flash to count as a keeper's successful fill. */
  min_fill_profit: bigint;
  /** Seconds a queued policy or config change waits before it applies. */
  policy_delay: bigint;
  /** Seconds over which a flash's profit enters the share price. */
  profit_unlock_secs: bigint;
}

/** `FlashPolicy` (spec): what the vault lends for, and where a liquidation may swap. */
export interface FlashPolicy {
  executors: string[];
  max_slippage_bps: number;
  pools: string[];
  routers: string[];
  /** Tokens a swap path may pass through between the lot asset and USDC. */
  tokens: string[];
}

/** A queued change (`PendingFlashPolicy` / `PendingConfig`): in force from `applies_at`. */
export interface Pending<T> {
  /** Unix seconds (ledger time). */
  applies_at: bigint;
  value: T;
}

/** The registry's page size: `get_keepers` returns at most this many addresses per call. */
export const KEEPERS_PAGE = 100;

/** `RegistryConfig` (spec). */
export interface RegistryConfig {
  min_stake: bigint;
  usdc_token: string;
}

/** A keeper's registry record (`KeeperInfo`), with unknown fields as null. */
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

type Obj = Record<string, unknown>;

function big(o: Obj, ...keys: string[]): bigint | null {
  for (const k of keys) {
    const v = toBigInt(o[k]);
    if (v !== null) return v;
  }
  return null;
}

function need(o: Obj, key: string): bigint {
  const v = toBigInt(o[key]);
  if (v === null) throw new Error(`field ${key} missing in contract result`);
  return v;
}

/** Parses a `VaultState` struct. */
export function parseVaultState(v: unknown): VaultState {
  const o = v as Obj;
  return {
    total_usdc: need(o, "total_usdc"),
    total_shares: need(o, "total_shares"),
    total_profit: need(o, "total_profit"),
    active_liq: need(o, "active_liq"),
    locked_profit: need(o, "locked_profit"),
    unlock_end: need(o, "unlock_end"),
  };
}

/** Parses a `VaultConfig` struct. */
export function parseVaultConfig(v: unknown): VaultConfig {
  const o = v as Obj;
  return {
    deposit_cap: need(o, "deposit_cap"),
    withdraw_cooldown: need(o, "withdraw_cooldown"),
    max_draw_per_keeper: need(o, "max_draw_per_keeper"),
    min_fill_profit: need(o, "min_fill_profit"),
    policy_delay: need(o, "policy_delay"),
    profit_unlock_secs: need(o, "profit_unlock_secs"),
  };
}

const addrList = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** Parses a `FlashPolicy` struct. */
export function parseFlashPolicy(v: unknown): FlashPolicy {
  const o = v as Obj;
  return {
    executors: addrList(o.executors),
    max_slippage_bps: Number(need(o, "max_slippage_bps")),
    pools: addrList(o.pools),
    routers: addrList(o.routers),
    tokens: addrList(o.tokens),
  };
}

/**
 * Parses an `Option<PendingFlashPolicy>` / `Option<PendingConfig>`: null for None (nothing
 * waits, or it already applied).
 */
export function parsePending<T>(
  v: unknown,
  field: "policy" | "config",
  parse: (x: unknown) => T,
): Pending<T> | null {
  if (v === null || v === undefined) return null;
  const o = v as Obj;
  return { applies_at: need(o, "applies_at"), value: parse(o[field]) };
}

/** Parses a `RegistryConfig` struct. */
export function parseRegistryConfig(v: unknown): RegistryConfig {
  const o = v as Obj;
  return {
    min_stake: need(o, "min_stake"),
    usdc_token: String(o.usdc_token),
  };
}

/** Parses a `KeeperInfo` struct. A zero average with no samples is "unknown", not 0 ms. */
export function parseKeeper(address: string, v: unknown): KeeperRecord {
  const o = v as Obj;
  const count = big(o, "response_count");
  const avgRaw = big(o, "avg_response_time_ms");
  const total = big(o, "total_response_time_ms");
  let avg: bigint | null = null;
  if (count !== null && count > 0n) avg = total !== null ? total / count : avgRaw;
  else if (count === null && avgRaw !== null && avgRaw > 0n) avg = avgRaw;
  return {
    address: typeof o.operator === "string" ? o.operator : address,
    name: typeof o.name === "string" ? o.name : null,
    stake: big(o, "stake"),
    registered_at: big(o, "registered_at"),
    total_executions: big(o, "total_executions"),
    successful_fills: big(o, "successful_fills"),
    total_profit: big(o, "total_profit"),
    avg_response_time_ms: avg,
  };
}

/**
 * Builds a position from `get_depositor` (record, may be absent) and `balance`
 * (a value or a `(shares, value)` tuple, depending on the vault).
 */
export function parseDepositor(
  address: string,
  record: unknown | null,
  balance: unknown,
  cooldown: bigint | null,
): DepositorPosition {
  const o = (record ?? {}) as Obj;
  let shares = big(o, "shares");
  let value: bigint | null = null;
  if (Array.isArray(balance)) {
    shares ??= toBigInt(balance[0]);
    value = toBigInt(balance[1]);
  } else if (balance && typeof balance === "object") {
    const b = balance as Obj;
    shares ??= big(b, "shares");
    value = big(b, "usdc", "value", "usdc_value", "assets", "amount");
  } else {
    value = toBigInt(balance);
  }
  const last = big(o, "last_deposit_time", "last_deposit_at", "deposited_at");
  const unlockExplicit = big(o, "unlock_at", "cooldown_until", "withdrawable_at");
  const unlock = unlockExplicit ??
    (last !== null && cooldown !== null && last > 0n ? last + cooldown : null);
  return {
    address,
    shares: record === null ? (shares ?? 0n) : shares,
    value,
    last_deposit_at: last,
    unlock_at: unlock,
    locked_shares: big(o, "locked_shares"),
    deposited: big(o, "deposited"),
    withdrawn: big(o, "withdrawn"),
    exists: record !== null && ((shares ?? 0n) > 0n || (big(o, "deposited") ?? 0n) > 0n),
  };
}

/**
 * Reads the vault and registry views by simulation. Arguments are positional (mapped to the
 * parameter names of the contract's own spec), so the reader does not hard-code them.
 */
export class ChainReader {
  constructor(
    readonly net: NetworkInfo,
    readonly vault: string | null,
    readonly registry: string | null,
  ) {}

  private vaultView<T>(fn: string, args: unknown[] = []): Promise<T> {
    if (!this.vault) return Promise.reject(new Error("no vault contract configured"));
    return simulateView<T>(this.net, this.vault, fn, args);
  }

  private registryView<T>(fn: string, args: unknown[] = []): Promise<T> {
    if (!this.registry) return Promise.reject(new Error("no registry contract configured"));
    return simulateView<T>(this.net, this.registry, fn, args);
  }

  /** Vault `get_state`. */
  vaultState(): Promise<Read<VaultState>> {
    return read(this.vaultView("get_state").then(parseVaultState));
  }

  /** Vault `get_config`. */
  vaultConfig(): Promise<Read<VaultConfig>> {
    return read(this.vaultView("get_config").then(parseVaultConfig));
  }

  /** Registry `get_config`. */
  registryConfig(): Promise<Read<RegistryConfig>> {
    return read(this.registryView("get_config").then(parseRegistryConfig));
  }

  /** Vault `get_flash_policy`: the policy in force. */
  flashPolicy(): Promise<Read<FlashPolicy>> {
    return read(this.vaultView("get_flash_policy").then(parseFlashPolicy));
  }

  /** Vault `get_pending_flash_policy`: the queued policy and when it applies, or null. */
  pendingFlashPolicy(): Promise<Read<Pending<FlashPolicy> | null>> {
    return read(
      this.vaultView("get_pending_flash_policy").then((v) =>
        parsePending(v, "policy", parseFlashPolicy)
      ),
    );
  }

  /** Vault `get_pending_config`: the queued config and when it applies, or null. */
  pendingConfig(): Promise<Read<Pending<VaultConfig> | null>> {
    return read(
      this.vaultView("get_pending_config").then((v) => parsePending(v, "config", parseVaultConfig)),
    );
  }

  /** Vault `get_admin`: the admin, or null once it renounced (no admin function works then). */
  vaultAdmin(): Promise<Read<string | null>> {
    return read(
      this.vaultView<unknown>("get_admin").then((v) => (typeof v === "string" ? v : null)),
    );
  }

  /** Registry `get_keeper_count`: how many operators are registered (no cap). */
  keeperCount(): Promise<Read<number>> {
    return read(this.registryView<unknown>("get_keeper_count").then((v) => Number(v)));
  }

  /** Registry `get_keepers(start, limit)`: one page of addresses (at most {@link KEEPERS_PAGE}). */
  keeperPage(start: number, limit = KEEPERS_PAGE): Promise<Read<string[]>> {
    return read(
      this.registryView<unknown[]>("get_keepers", [start, Math.min(limit, KEEPERS_PAGE)]).then(
        (list) => list.map(String),
      ),
    );
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
      const v = await this.registryView("get_keeper", [address]);
      return { value: parseKeeper(address, v), error: null };
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
   * A depositor's position: vault `get_depositor` (absent record = no position) and
   * `balance`. `cooldown` (seconds, from get_config) derives the unlock time.
   */
  async depositor(address: string, cooldown: bigint | null): Promise<Read<DepositorPosition>> {
    const rec = this.vaultView("get_depositor", [address]).then(
      (v) => v as unknown,
      (e) => {
        // No record: the vault's "not found" error or an Option::None.
        if (e instanceof ContractCallError && e.code !== null) return null;
        throw e;
      },
    );
    return await read(
      Promise.all([rec, this.vaultView("balance", [address])]).then(([r, b]) =>
        parseDepositor(address, r ?? null, b, cooldown)
      ),
    );
  }

  /** USDC `balance(id)` of the token contract (SEP-41), in units. */
  tokenBalance(token: string, address: string): Promise<Read<bigint>> {
    return read(
      simulateView<unknown>(this.net, token, "balance", [address]).then((v) => {
        const b = toBigInt(v);
        if (b === null) throw new Error("bad token balance");
        return b;
      }),
    );
  }

  /** The latest ledger's close time (Unix seconds): the clock cooldowns are measured on. */
  chainTime(): Promise<Read<number>> {
    return read(
      rpcServer(this.net.rpcUrl).getLatestLedger().then((l) => {
        const t = Number((l as { closeTime?: unknown }).closeTime);
        if (!Number.isFinite(t) || t <= 0) throw new Error("no close time");
        return t;
      }),
    );
  }
}
