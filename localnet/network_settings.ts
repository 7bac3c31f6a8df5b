/**
 * The public network's Soroban settings at protocol 27 (limits, fee schedule, rent, TTLs), with
 * their sources: the node's defaults (`constants.ts` TX_LIMITS, `fees.ts` FEE_CONFIG =
 * {@link p27FeeConfig}) come from here.
 *
 * Sources (read 2026-11-27; see localnet/README.md, "Protocol-27 network settings"):
 * - `LAB`: stellar/laboratory `src/constants/networkLimits.ts`, `MAINNET_LIMITS(_JSON)`, generated
 *   from the live public network's config-setting entries by its `fetch-network-limits.mjs`
 *   (after SLP-5, before protocol 28's state-target change: the protocol-27 network).
 * - `SLP4`: stellar-protocol `limits/slp-0004.md` (Final): 4× lower non-refundable fees
 *   (write 3,500 → 875 stroops/KB), higher ledger and transaction limits, 2 apply threads.
 * - `SLP5`: stellar-protocol `limits/slp-0005.md` (Final): footprint 200 → 400 entries.
 * - `CAP66`: stellar-protocol `core/cap-0066.md` (protocol 23): the flat write fee per KB
 *   (`feeWrite1KB`, 3,500 when introduced) separate from rent, whose per-KB rate follows the
 *   live Soroban state size.
 * - `ENV`: rs-soroban-env `soroban-env-host/src/fees.rs` (`compute_rent_write_fee_per_1kb`,
 *   `MINIMUM_RENT_WRITE_FEE_PER_1KB` = 1,000).
 * - `CORE`: stellar-core `soroban-settings/testnet_settings_upgrade.json` (history: "Update
 *   testnet config to match SLP-4", "… with SLP-5"), the same values as `LAB`'s mainnet.
 *
 * @module
 */

/** Fee configuration (stroops). Defaults are the public network's published figures. */
export interface FeeConfig {
  /** per 10,000 CPU instructions */
  perInstructionIncrement: bigint;
  /** per disk-read ledger entry (classic entries in the footprint) */
  perDiskReadEntry: bigint;
  /** per written ledger entry */
  perWriteEntry: bigint;
  /** per 1 KiB of disk reads */
  perDiskRead1kb: bigint;
  /** per 1 KiB written */
  perWrite1kb: bigint;
  /** per 1 KiB of transaction (+ 300-byte result) kept in history */
  perHistorical1kb: bigint;
  /** per 1 KiB of transaction size (bandwidth) */
  perTxSize1kb: bigint;
  /** per 1 KiB of contract events and return value (refundable) */
  perEvent1kb: bigint;
  /** rent: fee per 1 KiB of ledger space, charged once per rent period */
  rentPer1kb: bigint;
  /** rent period (ledgers) of persistent entries */
  persistentRentDenominator: bigint;
  /** rent period (ledgers) of temporary entries */
  temporaryRentDenominator: bigint;
}

/** One Soroban network setting: its value at protocol 27 and where it comes from. */
export interface Setting {
  /** The `ConfigSettingEntry` field (stellar-xdr / stellar-core JSON name). */
  xdr: string;
  value: number;
  /** Keys of the sources in the module docs. */
  source: string;
}

/** The public network's Soroban settings at protocol 27. */
export const P27_SETTINGS = {
  // Compute (CONFIG_SETTING_CONTRACT_COMPUTE_V0).
  txMaxInstructions: { xdr: "tx_max_instructions", value: 400_000_000, source: "LAB, SLP4" },
  ledgerMaxInstructions: {
    xdr: "ledger_max_instructions",
    value: 580_000_000,
    source: "LAB, SLP4 (per apply thread)",
  },
  ledgerMaxDependentTxClusters: {
    xdr: "ledger_max_dependent_tx_clusters",
    value: 2,
    source: "LAB, SLP4",
  },
  txMemoryLimit: { xdr: "tx_memory_limit", value: 41_943_040, source: "LAB" },
  // Ledger access (CONTRACT_LEDGER_COST_V0 and _EXT_V0).
  txMaxFootprintEntries: { xdr: "tx_max_footprint_entries", value: 400, source: "LAB, SLP5" },
  txMaxDiskReadEntries: { xdr: "tx_max_disk_read_entries", value: 200, source: "LAB, SLP4" },
  txMaxDiskReadBytes: { xdr: "tx_max_disk_read_bytes", value: 200_000, source: "LAB" },
  txMaxWriteEntries: { xdr: "tx_max_write_ledger_entries", value: 200, source: "LAB, SLP4" },
  txMaxWriteBytes: { xdr: "tx_max_write_bytes", value: 132_096, source: "LAB" },
  ledgerMaxDiskReadEntries: {
    xdr: "ledger_max_disk_read_entries",
    value: 1_000,
    source: "LAB, SLP4",
  },
  ledgerMaxDiskReadBytes: {
    xdr: "ledger_max_disk_read_bytes",
    value: 400_000,
    source: "LAB, SLP4",
  },
  ledgerMaxWriteEntries: {
    xdr: "ledger_max_write_ledger_entries",
    value: 1_000,
    source: "LAB, SLP4",
  },
  ledgerMaxWriteBytes: { xdr: "ledger_max_write_bytes", value: 286_720, source: "LAB, SLP4" },
  // Size limits.
  txMaxSizeBytes: { xdr: "tx_max_size_bytes", value: 132_096, source: "LAB" },
  ledgerMaxTxsSizeBytes: { xdr: "ledger_max_txs_size_bytes", value: 266_240, source: "LAB, SLP4" },
  ledgerMaxTxCount: { xdr: "ledger_max_tx_count", value: 2_000, source: "LAB" },
  txMaxContractEventsSizeBytes: {
    xdr: "tx_max_contract_events_size_bytes",
    value: 16_384,
    source: "LAB",
  },
  contractMaxSizeBytes: { xdr: "contract_max_size_bytes", value: 131_072, source: "LAB" },
  contractDataKeySizeBytes: { xdr: "contract_data_key_size_bytes", value: 250, source: "LAB" },
  contractDataEntrySizeBytes: {
    xdr: "contract_data_entry_size_bytes",
    value: 65_536,
    source: "LAB",
  },
  // Fee schedule (stroops; non-refundable unless noted).
  feePerInstructionIncrement: {
    xdr: "fee_rate_per_instructions_increment",
    value: 7,
    source: "LAB, SLP4 (per 10,000 instructions)",
  },
  feeDiskReadEntry: { xdr: "fee_disk_read_ledger_entry", value: 1_563, source: "LAB, SLP4" },
  feeWriteEntry: { xdr: "fee_write_ledger_entry", value: 2_500, source: "LAB, SLP4" },
  feeDiskRead1kb: { xdr: "fee_disk_read1_kb", value: 447, source: "LAB, SLP4" },
  feeWrite1kb: {
    xdr: "fee_write1_kb",
    value: 875,
    source: "LAB, SLP4 (CAP66's flat write fee: 3,500 at protocol 23, ÷4 by SLP-4)",
  },
  feeHistorical1kb: { xdr: "fee_historical1_kb", value: 4_059, source: "LAB, SLP4" },
  feeTxSize1kb: { xdr: "fee_tx_size1_kb", value: 406, source: "LAB, SLP4" },
  feeContractEvents1kb: {
    xdr: "fee_contract_events1_kb",
    value: 5_000,
    source: "LAB, SLP4 (refundable)",
  },
  // Rent (refundable): the per-KB rate follows the live Soroban state size (CAP66, ENV).
  sorobanStateTargetSizeBytes: {
    xdr: "soroban_state_target_size_bytes",
    value: 3_000_000_000,
    source: "LAB (stellar-core raised testnet's to 4e9 for protocol 28)",
  },
  rentFee1kbStateSizeLow: {
    xdr: "rent_fee1_kb_soroban_state_size_low",
    value: -17_000,
    source: "LAB",
  },
  rentFee1kbStateSizeHigh: {
    xdr: "rent_fee1_kb_soroban_state_size_high",
    value: 10_000,
    source: "LAB",
  },
  stateRentFeeGrowthFactor: {
    xdr: "soroban_state_rent_fee_growth_factor",
    value: 5_000,
    source: "LAB",
  },
  persistentRentRateDenominator: {
    xdr: "persistent_rent_rate_denominator",
    value: 1_215,
    source: "LAB",
  },
  tempRentRateDenominator: { xdr: "temp_rent_rate_denominator", value: 2_430, source: "LAB" },
  // State archival (ledgers).
  minPersistentTtl: { xdr: "min_persistent_ttl", value: 2_073_600, source: "LAB (120 days)" },
  minTemporaryTtl: { xdr: "min_temporary_ttl", value: 17_280, source: "LAB (1 day)" },
  maxEntryTtl: { xdr: "max_entry_ttl", value: 3_110_400, source: "LAB (180 days)" },
  liveSorobanStateSizeWindowSampleSize: {
    xdr: "live_soroban_state_size_window_sample_size",
    value: 30,
    source: "LAB",
  },
  liveSorobanStateSizeWindowSamplePeriod: {
    xdr: "live_soroban_state_size_window_sample_period",
    value: 64,
    source: "LAB",
  },
  ledgerTargetCloseTimeMs: {
    xdr: "ledger_target_close_time_milliseconds",
    value: 5_000,
    source: "LAB",
  },
} as const satisfies Record<string, Setting>;

/** rs-soroban-env's floor of the rent rate (`MINIMUM_RENT_WRITE_FEE_PER_1KB`). */
export const MINIMUM_RENT_FEE_PER_1KB = 1_000n;

/**
 * The rent rate per KB for a live Soroban state of `stateBytes` (stellar-core feeds it the
 * average of its live-state size window): below the target it rises linearly from the `low`
 * rate to the `high` one; past the target it keeps rising, `growthFactor` times as steeply;
 * never below {@link MINIMUM_RENT_FEE_PER_1KB}. The formula of rs-soroban-env's
 * `compute_rent_write_fee_per_1kb`, written out here.
 */
export function rentFeePer1kb(stateBytes: bigint, s = P27_SETTINGS): bigint {
  const low = BigInt(s.rentFee1kbStateSizeLow.value);
  const high = BigInt(s.rentFee1kbStateSizeHigh.value);
  const target = BigInt(s.sorobanStateTargetSizeBytes.value);
  const slope = high - low;
  const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
  const fee = stateBytes < target ? low + ceilDiv(slope * stateBytes, target) : high +
    ceilDiv(slope * (stateBytes - target) * BigInt(s.stateRentFeeGrowthFactor.value), target);
  return fee > MINIMUM_RENT_FEE_PER_1KB ? fee : MINIMUM_RENT_FEE_PER_1KB;
}

/**
 * The average of the public network's live Soroban state size window as `LAB` recorded it (30
 * samples, 819.4–832.6 MB): far below the 3 GB target, so the rent rate is at its 1,000-stroop
 * floor (the linear part gives −9,570).
 */
export const P27_MAINNET_STATE_SIZE_SAMPLE = 825_463_288n;

/**
 * The node's {@link FeeConfig} with protocol 27's fee schedule; rent at the rate of a live
 * Soroban state of `stateBytes` (default: the public network's, i.e. the 1,000-stroop floor).
 */
export function p27FeeConfig(stateBytes = P27_MAINNET_STATE_SIZE_SAMPLE): FeeConfig {
  const s = P27_SETTINGS;
  return {
    perInstructionIncrement: BigInt(s.feePerInstructionIncrement.value),
    perDiskReadEntry: BigInt(s.feeDiskReadEntry.value),
    perWriteEntry: BigInt(s.feeWriteEntry.value),
    perDiskRead1kb: BigInt(s.feeDiskRead1kb.value),
    perWrite1kb: BigInt(s.feeWrite1kb.value),
    perHistorical1kb: BigInt(s.feeHistorical1kb.value),
    perTxSize1kb: BigInt(s.feeTxSize1kb.value),
    perEvent1kb: BigInt(s.feeContractEvents1kb.value),
    rentPer1kb: rentFeePer1kb(stateBytes),
    persistentRentDenominator: BigInt(s.persistentRentRateDenominator.value),
    temporaryRentDenominator: BigInt(s.tempRentRateDenominator.value),
  };
}

/** A node value that differs from protocol 27's. */
export interface SettingDifference {
  setting: string;
  node: number | bigint;
  p27: number | bigint;
}

/** The node's current values (constants.ts, fees.ts) that differ from {@link P27_SETTINGS}. */
export function differencesFrom(
  node: {
    fees: FeeConfig;
    txLimits: {
      instructions: number;
      diskReadBytes: number;
      writeBytes: number;
      readEntries: number;
      writeEntries: number;
      txSizeBytes: number;
    };
    ledger: { sorobanTxs: number; sorobanInstructions: number };
    ttl: { minPersistent: number; minTemporary: number; max: number };
  },
): SettingDifference[] {
  const s = P27_SETTINGS;
  const p27 = p27FeeConfig();
  const pairs: [string, number | bigint, number | bigint][] = [
    [
      "fee_rate_per_instructions_increment",
      node.fees.perInstructionIncrement,
      p27.perInstructionIncrement,
    ],
    ["fee_disk_read_ledger_entry", node.fees.perDiskReadEntry, p27.perDiskReadEntry],
    ["fee_write_ledger_entry", node.fees.perWriteEntry, p27.perWriteEntry],
    ["fee_disk_read1_kb", node.fees.perDiskRead1kb, p27.perDiskRead1kb],
    ["fee_write1_kb", node.fees.perWrite1kb, p27.perWrite1kb],
    ["fee_historical1_kb", node.fees.perHistorical1kb, p27.perHistorical1kb],
    ["fee_tx_size1_kb", node.fees.perTxSize1kb, p27.perTxSize1kb],
    ["fee_contract_events1_kb", node.fees.perEvent1kb, p27.perEvent1kb],
    ["rent fee per KB (at the network's state size)", node.fees.rentPer1kb, p27.rentPer1kb],
    [
      "persistent_rent_rate_denominator",
      node.fees.persistentRentDenominator,
      p27.persistentRentDenominator,
    ],
    [
      "temp_rent_rate_denominator",
      node.fees.temporaryRentDenominator,
      p27.temporaryRentDenominator,
    ],
    ["tx_max_instructions", node.txLimits.instructions, s.txMaxInstructions.value],
    ["tx_max_disk_read_bytes", node.txLimits.diskReadBytes, s.txMaxDiskReadBytes.value],
    ["tx_max_write_bytes", node.txLimits.writeBytes, s.txMaxWriteBytes.value],
    // The node's `readEntries` bounds the whole footprint (read-only + read-write).
    ["tx_max_footprint_entries", node.txLimits.readEntries, s.txMaxFootprintEntries.value],
    ["tx_max_write_ledger_entries", node.txLimits.writeEntries, s.txMaxWriteEntries.value],
    ["tx_max_size_bytes", node.txLimits.txSizeBytes, s.txMaxSizeBytes.value],
    ["ledger_max_tx_count", node.ledger.sorobanTxs, s.ledgerMaxTxCount.value],
    ["ledger_max_instructions", node.ledger.sorobanInstructions, s.ledgerMaxInstructions.value],
    ["min_persistent_ttl", node.ttl.minPersistent, s.minPersistentTtl.value],
    ["min_temporary_ttl", node.ttl.minTemporary, s.minTemporaryTtl.value],
    ["max_entry_ttl", node.ttl.max, s.maxEntryTtl.value],
  ];
  return pairs.filter(([, a, b]) => BigInt(a) !== BigInt(b)).map(([setting, n, p]) => ({
    setting,
    node: n,
    p27: p,
  }));
}
