/**
 * The ledger and network settings the real host needs for each call: `LedgerInfo` (what
 * stellar-core passes per ledger) and the Soroban network config (limits, fee schedule, rent,
 * cost model), with defaults for the local node.
 *
 * The defaults are the public network's protocol-27 settings (`FEE_CONFIG`, `TX_LIMITS`, from
 * `network_settings.ts`); the cost model is the host's built-in one (the live network's
 * `ContractCostParams` entries are not loaded: a documented difference, see localnet/README.md).
 *
 * @module
 */
import { hash } from "@stellar/stellar-sdk";
import { FEE_CONFIG } from "../fees.ts";
import { MAX_ENTRY_TTL, MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL, TX_LIMITS } from "../constants.ts";

/** The protocol the real host runs the node at (issue 22). */
export const REAL_HOST_PROTOCOL = 27;

/** `soroban_env_host::LedgerInfo`. */
export interface LedgerInfo {
  protocolVersion: number;
  sequenceNumber: number;
  /** Close time, Unix seconds. */
  timestamp: bigint;
  /** SHA-256 of the network passphrase. */
  networkId: Uint8Array;
  /** Base reserve in stroops. */
  baseReserve: number;
  minTempEntryTtl: number;
  minPersistentEntryTtl: number;
  maxEntryTtl: number;
}

/** Soroban network settings (`soroban_simulation::NetworkConfig` minus the TTLs of `LedgerInfo`). */
export interface NetworkSettings {
  txMaxInstructions: number;
  /** Per-transaction memory limit, bytes. */
  txMemoryLimit: number;
  fee: {
    perInstructionIncrement: bigint;
    perDiskReadEntry: bigint;
    perWriteEntry: bigint;
    perDiskRead1kb: bigint;
    perWrite1kb: bigint;
    perHistorical1kb: bigint;
    perContractEvent1kb: bigint;
    perTransactionSize1kb: bigint;
  };
  rent: {
    /** Rent per 1 KiB, as computed from the live Soroban state size. */
    perRent1kb: bigint;
    persistentRentRateDenominator: bigint;
    temporaryRentRateDenominator: bigint;
  };
  /** Base64 `ContractCostParams`; absent = the host's built-in model. */
  cpuCostParams?: string;
  memCostParams?: string;
}

/** The node's settings for the real host: the public network's at protocol 27 (FEE_CONFIG). */
export const DEFAULT_NETWORK_SETTINGS: NetworkSettings = {
  txMaxInstructions: TX_LIMITS.instructions,
  // 40 MiB: the public network's `txMemoryLimit`.
  txMemoryLimit: 41_943_040,
  fee: {
    perInstructionIncrement: FEE_CONFIG.perInstructionIncrement,
    perDiskReadEntry: FEE_CONFIG.perDiskReadEntry,
    perWriteEntry: FEE_CONFIG.perWriteEntry,
    perDiskRead1kb: FEE_CONFIG.perDiskRead1kb,
    // CAP-66 (protocol 23): a flat write fee per KiB, separate from rent (875 after SLP-4).
    perWrite1kb: FEE_CONFIG.perWrite1kb,
    perHistorical1kb: FEE_CONFIG.perHistorical1kb,
    perContractEvent1kb: FEE_CONFIG.perEvent1kb,
    perTransactionSize1kb: FEE_CONFIG.perTxSize1kb,
  },
  rent: {
    perRent1kb: FEE_CONFIG.rentPer1kb,
    persistentRentRateDenominator: FEE_CONFIG.persistentRentDenominator,
    temporaryRentRateDenominator: FEE_CONFIG.temporaryRentDenominator,
  },
};

/** A `LedgerInfo` for `sequence` on the network named by `passphrase`, with the node's TTLs. */
export function ledgerInfo(
  passphrase: string,
  sequence: number,
  timestamp: bigint,
  over: Partial<LedgerInfo> = {},
): LedgerInfo {
  return {
    protocolVersion: REAL_HOST_PROTOCOL,
    sequenceNumber: sequence,
    timestamp,
    networkId: new Uint8Array(hash(new TextEncoder().encode(passphrase) as never)),
    baseReserve: 5_000_000,
    minTempEntryTtl: MIN_TEMPORARY_TTL,
    minPersistentEntryTtl: MIN_PERSISTENT_TTL,
    maxEntryTtl: MAX_ENTRY_TTL,
    ...over,
  };
}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** The request's `ledger` object. */
export function ledgerJson(l: LedgerInfo): Record<string, unknown> {
  return {
    protocol_version: l.protocolVersion,
    sequence_number: l.sequenceNumber,
    timestamp: l.timestamp.toString(),
    network_id: hex(l.networkId),
    base_reserve: l.baseReserve,
    min_temp_entry_ttl: l.minTempEntryTtl,
    min_persistent_entry_ttl: l.minPersistentEntryTtl,
    max_entry_ttl: l.maxEntryTtl,
  };
}

/** The request's `config` object. */
export function configJson(s: NetworkSettings): Record<string, unknown> {
  return {
    tx_max_instructions: s.txMaxInstructions,
    tx_memory_limit: s.txMemoryLimit,
    fee: {
      per_instruction_increment: s.fee.perInstructionIncrement.toString(),
      per_disk_read_entry: s.fee.perDiskReadEntry.toString(),
      per_write_entry: s.fee.perWriteEntry.toString(),
      per_disk_read_1kb: s.fee.perDiskRead1kb.toString(),
      per_write_1kb: s.fee.perWrite1kb.toString(),
      per_historical_1kb: s.fee.perHistorical1kb.toString(),
      per_contract_event_1kb: s.fee.perContractEvent1kb.toString(),
      per_transaction_size_1kb: s.fee.perTransactionSize1kb.toString(),
    },
    rent: {
      per_rent_1kb: s.rent.perRent1kb.toString(),
      persistent_rent_rate_denominator: s.rent.persistentRentRateDenominator.toString(),
      temporary_rent_rate_denominator: s.rent.temporaryRentRateDenominator.toString(),
    },
    cpu_cost_params: s.cpuCostParams ?? null,
    mem_cost_params: s.memCostParams ?? null,
  };
}

/** Hex of 32 bytes (the PRNG seed). */
export const hex32 = hex;
