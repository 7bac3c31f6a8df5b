/**
 * Network constants of the local node: protocol version, fees, reserves, Soroban limits and
 * TTLs. Values follow the public network's settings at protocol 27 (`network_settings.ts`, with
 * their sources) where one exists.
 *
 * @module
 */
import { P27_SETTINGS } from "./network_settings.ts";

/** Protocol reported and written into headers: the real host's (`real_host/`), 27. */
export const PROTOCOL_VERSION = 27;
/** Base fee per operation (stroops). */
export const BASE_FEE = 100;
/** Base reserve (stroops): minimum balance = (2 + numSubEntries) × BASE_RESERVE. */
export const BASE_RESERVE = 5_000_000n;
/** 100 billion XLM, in stroops: the root account's genesis balance. */
export const TOTAL_COINS = 1_000_000_000_000_000_000n;
/** Maximum transactions per ledger written into headers. */
export const MAX_TX_SET_SIZE = 1000;
/**
 * Per-ledger capacity of the two transaction lanes (surge pricing by inclusion fee above it).
 * Defaults of this node, in the range of the public network's settings; set per node.
 */
export const LEDGER_LIMITS = {
  classicOps: 1000,
  sorobanTxs: 100,
  sorobanInstructions: 500_000_000,
} as const;
/** Ledgers a transaction may wait in the queue before it is dropped (stellar-core: 4). */
export const QUEUE_TIMEOUT_LEDGERS = 4;
/** History kept by default: stellar-rpc's 7 days of 5-second ledgers. */
export const RETENTION_WINDOW_LEDGERS = 120_960;
/** getFeeStats windows (ledgers), as stellar-rpc's defaults. */
export const CLASSIC_FEE_STATS_WINDOW = 10;
export const SOROBAN_FEE_STATS_WINDOW = 50;
/** Largest fee-stats window stellar-rpc accepts (v25.1.0, `MaxFeeStatsRetentionWindow`). */
export const MAX_FEE_STATS_WINDOW = 1000;
/** Friendbot's starting balance: 10,000 XLM. */
export const FRIENDBOT_STARTING_BALANCE = 10_000n * 10_000_000n;

/** Maximum TTL of an entry, in ledgers (auth signature expiry bound). */
export const MAX_ENTRY_TTL = 3_110_400;
/** TTL given to a new persistent/instance/code entry. */
export const MIN_PERSISTENT_TTL = 2_073_600;
/** TTL given to a new temporary entry. */
export const MIN_TEMPORARY_TTL = 17_280;

/** Per-transaction Soroban limits (declared resources above them are txSOROBAN_INVALID). */
export const TX_LIMITS = {
  instructions: P27_SETTINGS.txMaxInstructions.value,
  diskReadBytes: P27_SETTINGS.txMaxDiskReadBytes.value,
  writeBytes: P27_SETTINGS.txMaxWriteBytes.value,
  // The node's `readEntries` bounds the whole footprint (read-only + read-write).
  readEntries: P27_SETTINGS.txMaxFootprintEntries.value,
  writeEntries: P27_SETTINGS.txMaxWriteEntries.value,
  txSizeBytes: P27_SETTINGS.txMaxSizeBytes.value,
} as const;

/** getEvents: ledgers scanned per request and page sizes. */
export const EVENTS_SCAN_LIMIT = 10_000;
export const EVENTS_DEFAULT_LIMIT = 100;
export const EVENTS_MAX_LIMIT = 10_000;
/** getTransactions page sizes (stellar-rpc's shipped defaults). */
export const TXS_DEFAULT_LIMIT = 50;
export const TXS_MAX_LIMIT = 200;
/** getLedgers page sizes (stellar-rpc's shipped defaults). */
export const LEDGERS_DEFAULT_LIMIT = 50;
export const LEDGERS_MAX_LIMIT = 200;
/** getLedgerEntries: keys per request. */
export const MAX_LEDGER_ENTRY_KEYS = 200;

/** Version string served by getVersionInfo. */
export const NODE_VERSION = "27.0.0-vigil-localnet";
