/**
 * The dashboard state store: what the keeper cycle learned from the chain, in memory, for the HTTP
 * API. Plain data plus update functions; amounts are bigint 7-decimal units; nothing here is needed
 * for correctness (the keeper rebuilds it from the chain after a restart).
 *
 * Every update bumps `version`, which the API uses as an ETag.
 */

/** A keeper as read from the registry (get_keepers + get_keeper). Unknown fields are null. */
export interface KeeperRow {
  address: string;
  name: string | null;
  stake: bigint | null;
  active: boolean | null;
  hasActiveDraw: boolean | null;
  /** When the current draw was marked (slash clock start), if any. */
  drawMarkedAt: Date | null;
  registeredAt: Date | null;
  totalExecutions: bigint | null;
  successfulFills: bigint | null;
  totalProfit: bigint | null;
  avgResponseTimeMs: number | null;
}

/** A lending-pool position with its health factor (null when it has no debt). */
export interface Position {
  pool: string;
  user: string;
  /** Finite health factor, or null when the position has no liabilities. */
  healthFactor: number | null;
  /** Oracle-priced collateral and liabilities in the oracle's base units (7 decimals), if known. */
  collateralValue: bigint | null;
  liabilitiesValue: bigint | null;
  /** An open liquidation auction on this user, if known. */
  auction: { startBlock: number; percent: number | null } | null;
  updatedAt: Date;
}

/** VaultState read from get_state. */
export interface VaultSnapshot {
  /** The vault's USDC, the profit still locked included. */
  totalUsdc: bigint;
  totalShares: bigint;
  totalProfit: bigint;
  activeLiq: bigint;
  /** Flash profit not yet in the share price (issue 20: it unlocks linearly). */
  lockedProfit: bigint;
  /** When `lockedProfit` reaches 0 (ledger time), or null when nothing is locked. */
  unlockEnd: Date | null;
  /** Ledger the read was made at, if known. */
  ledger: number | null;
  readAt: Date;
}

/** VaultConfig read from get_config. */
export interface VaultConfigSnapshot {
  depositCap: bigint;
  withdrawCooldownSec: number;
  maxDrawPerKeeper: bigint;
  /** Least profit of a flash the registry counts as a successful fill. */
  minFillProfit: bigint;
  /** Seconds a queued policy/config change waits. */
  policyDelaySec: number;
  /** Seconds over which a flash's profit enters the share price. */
  profitUnlockSec: number;
}

/** A flash-policy or config change the vault's admin queued (`get_pending_*`). */
export interface PendingChangeRow<T> {
  /** When it is in force (ledger time). */
  appliesAt: Date;
  value: T;
  /**
   * Why it would stop this keeper's liquidations (its pool or liquidator de-listed), or null.
   * Only for a flash policy.
   */
  warning: string | null;
}

/** The flash policy fields shown by the API. */
export interface PolicyRow {
  executors: string[];
  maxSlippageBps: number;
  pools: string[];
  routers: string[];
  tokens: string[];
}

/** A known depositor's balance (vault `balance`). */
export interface DepositorRow {
  address: string;
  shares: bigint;
  usdcValue: bigint;
  readAt: Date;
}

/**
 * How a liquidation attempt ended: `filled` (the flash settled: fill, swap and repayment in one
 * transaction), `lost_race` (another keeper filled first; our flash reverted, nothing lent),
 * `failed` (the fill did not happen). `held` is no longer produced since issue 12 (a lot that
 * cannot be sold is never seized); it stays in the type for compatibility and counts as a fill.
 */
export type LiquidationOutcome = "filled" | "lost_race" | "held" | "failed";

/** True for the outcomes that are successful auction fills. */
export function isFill(outcome: LiquidationOutcome): boolean {
  return outcome === "filled" || outcome === "held";
}

/** Input of {@link recordLiquidation}. Profit is derived, never supplied. */
export interface LiquidationInput {
  adapter: string;
  pool: string | null;
  user: string | null;
  outcome: LiquidationOutcome;
  drew: bigint;
  proceeds: bigint;
  responseTimeMs: number;
  txHash: string | null;
  /** Ledger of the fill transaction, if known. */
  ledger: number | null;
  /** Auction block (start ledger), if known. */
  auctionBlock?: number | null;
  /**
   * A fill's landing ledger less its first profitable block (at that block's prices; 0 = in it),
   * when known.
   */
  ledgersAfterFirstProfitable?: number | null;
  time: Date;
  /** Free text for operators (e.g. why collateral is held). */
  note?: string | null;
}

/** One liquidation history entry. */
export interface LiquidationRecord extends LiquidationInput {
  id: number;
  /** max(0, proceeds − drew) for fills; 0 for any other outcome. */
  profit: bigint;
  keeper: string;
  keeperName: string;
}

/** A point of the share-price series ((total_usdc − locked_profit) / total_shares at a time). */
export interface SharePricePoint {
  time: Date;
  totalUsdc: bigint;
  totalShares: bigint;
  /** Flash profit still locked then (not in the share price). */
  lockedProfit: bigint;
  ledger: number | null;
}

/** This keeper's own counters. */
export interface KeeperStats {
  cycles: number;
  lastCycle: { number: number; startedAt: Date; durationMs: number; errors: number } | null;
  /** Successful fills (`filled` + `held`). */
  fills: number;
  lostRaces: number;
  held: number;
  failed: number;
  totalDrew: bigint;
  totalProceeds: bigint;
  totalProfit: bigint;
  /** Sum and count of fill response times, for the average. */
  responseTimeSumMs: number;
  errors: number;
  /** Capital out with this keeper between transactions: always 0 since issue 12 (flash loans). */
  outstandingDraw: bigint | null;
  /** Native balance in stroops, if known. */
  nativeBalance: bigint | null;
  lastLiquidationAt: Date | null;
}

/** Whether the keeper runs liquidation cycles or only monitors the vault. */
export type KeeperMode = "liquidation" | "monitor";

/** The whole dashboard state. */
export interface DashboardState {
  version: number;
  self: { name: string; address: string; mode: KeeperMode; startedAt: Date };
  latestLedger: number | null;
  /** The first registered keepers (bounded: the registry has no cap), this keeper included. */
  keepers: KeeperRow[];
  /** Registered keepers in all (`get_keeper_count`), when known. */
  keepersTotal: number | null;
  keepersReadAt: Date | null;
  /** Positions by pool, each keyed by user. */
  positions: Map<string, Map<string, Position>>;
  vault: VaultSnapshot | null;
  vaultConfig: VaultConfigSnapshot | null;
  /** Changes the vault's admin queued, not yet in force (null: none; undefined: not read). */
  pendingPolicy?: PendingChangeRow<PolicyRow> | null;
  pendingConfig?: PendingChangeRow<VaultConfigSnapshot> | null;
  depositors: DepositorRow[];
  stats: KeeperStats;
  liquidations: LiquidationRecord[];
  sharePrice: SharePricePoint[];
  limits: { liquidations: number; sharePricePoints: number; sharePriceFlatGapMs: number };
  nextLiquidationId: number;
  /** DRY_RUN: whether it is on, and the newest transactions it did not send. */
  dryRun: { enabled: boolean; actions: DryRunRecord[] };
}

/** A transaction DRY_RUN built, simulated and checked, and did not send. */
export interface DryRunRecord {
  time: Date;
  /** `fn on C…`, or the classic operation types. */
  call: string;
  pool: string | null;
  /** The inclusion fee it would have bid, stroops. */
  inclusionFee: number | null;
  resourceFee: string | null;
}

/** Dry-run records kept (newest). */
export const DRY_RUN_RECORDS_MAX = 100;

/** Records a transaction DRY_RUN did not send (newest kept). */
export function recordDryRun(s: DashboardState, r: DryRunRecord): void {
  s.dryRun.actions.push(r);
  if (s.dryRun.actions.length > DRY_RUN_RECORDS_MAX) s.dryRun.actions.shift();
  touch(s);
}

/** Options of {@link createState}. */
export interface StateOptions {
  name: string;
  address: string;
  mode: KeeperMode;
  startedAt?: Date;
  /** DRY_RUN is on. */
  dryRun?: boolean;
  /** Liquidation records kept (newest). Default 500. */
  maxLiquidations?: number;
  /** Share-price points kept (newest). Default 5000. */
  maxSharePricePoints?: number;
  /** A flat share price still gets a point this often, so the series spans real time. Default 1 h. */
  sharePriceFlatGapMs?: number;
}

/** A fresh, empty state. */
export function createState(opts: StateOptions): DashboardState {
  return {
    version: 0,
    self: {
      name: opts.name,
      address: opts.address,
      mode: opts.mode,
      startedAt: opts.startedAt ?? new Date(),
    },
    latestLedger: null,
    keepers: [],
    keepersTotal: null,
    keepersReadAt: null,
    positions: new Map(),
    vault: null,
    vaultConfig: null,
    depositors: [],
    stats: {
      cycles: 0,
      lastCycle: null,
      fills: 0,
      lostRaces: 0,
      held: 0,
      failed: 0,
      totalDrew: 0n,
      totalProceeds: 0n,
      totalProfit: 0n,
      responseTimeSumMs: 0,
      errors: 0,
      outstandingDraw: null,
      nativeBalance: null,
      lastLiquidationAt: null,
    },
    liquidations: [],
    sharePrice: [],
    limits: {
      liquidations: opts.maxLiquidations ?? 500,
      sharePricePoints: opts.maxSharePricePoints ?? 5000,
      sharePriceFlatGapMs: opts.sharePriceFlatGapMs ?? 3_600_000,
    },
    nextLiquidationId: 1,
    dryRun: { enabled: opts.dryRun ?? false, actions: [] },
  };
}

function touch(s: DashboardState): void {
  s.version++;
}

/** Replaces the registry's keeper list (`total`: registered in all, when known). */
export function setKeepers(
  s: DashboardState,
  rows: KeeperRow[],
  readAt = new Date(),
  total: number | null = rows.length,
): void {
  s.keepers = rows.map((r) => ({ ...r }));
  s.keepersTotal = total;
  s.keepersReadAt = readAt;
  touch(s);
}

/** Records the queued flash policy and config (null: nothing queued). */
export function setPendingChanges(
  s: DashboardState,
  policy: PendingChangeRow<PolicyRow> | null,
  config: PendingChangeRow<VaultConfigSnapshot> | null,
): void {
  s.pendingPolicy = policy && { ...policy };
  s.pendingConfig = config && { ...config };
  touch(s);
}

/** Records the latest ledger seen. */
export function setLatestLedger(s: DashboardState, ledger: number): void {
  if (s.latestLedger === ledger) return;
  s.latestLedger = ledger;
  touch(s);
}

/** Replaces all positions of one pool. A non-finite health factor is stored as null. */
export function setPositions(s: DashboardState, pool: string, positions: Position[]): void {
  const m = new Map<string, Position>();
  for (const p of positions) {
    m.set(p.user, { ...p, pool, healthFactor: finiteOrNull(p.healthFactor) });
  }
  s.positions.set(pool, m);
  touch(s);
}

/** Inserts or replaces one position (incremental updates from pool events). */
export function upsertPosition(s: DashboardState, p: Position): void {
  let m = s.positions.get(p.pool);
  if (!m) s.positions.set(p.pool, m = new Map());
  m.set(p.user, { ...p, healthFactor: finiteOrNull(p.healthFactor) });
  touch(s);
}

/** Removes one position (e.g. fully repaid and withdrawn). */
export function removePosition(s: DashboardState, pool: string, user: string): void {
  if (s.positions.get(pool)?.delete(user)) touch(s);
}

/** All positions, lowest health factor first (no-debt positions last), then by user. */
export function listPositions(s: DashboardState): Position[] {
  const all: Position[] = [];
  for (const m of s.positions.values()) all.push(...m.values());
  return all.sort((a, b) => {
    const ha = a.healthFactor ?? Infinity;
    const hb = b.healthFactor ?? Infinity;
    if (ha !== hb) return ha < hb ? -1 : 1;
    return a.user < b.user ? -1 : a.user > b.user ? 1 : 0;
  });
}

/** Counts of tracked and underwater (HF < 1) positions. */
export function positionCounts(s: DashboardState): PositionCounts {
  const all: PositionCounts = { tracked: 0, withDebt: 0, underwater: 0 };
  for (const c of positionCountsByPool(s).values()) {
    all.tracked += c.tracked;
    all.withDebt += c.withDebt;
    all.underwater += c.underwater;
  }
  return all;
}

/** How many positions are tracked, have debt, and are under water. */
export interface PositionCounts {
  tracked: number;
  withDebt: number;
  underwater: number;
}

/** {@link positionCounts} for each pool. */
export function positionCountsByPool(s: DashboardState): Map<string, PositionCounts> {
  const out = new Map<string, PositionCounts>();
  for (const [pool, m] of s.positions) {
    const c: PositionCounts = { tracked: 0, withDebt: 0, underwater: 0 };
    for (const p of m.values()) {
      c.tracked++;
      if (p.healthFactor !== null) {
        c.withDebt++;
        if (p.healthFactor < 1) c.underwater++;
      }
    }
    out.set(pool, c);
  }
  return out;
}

/**
 * Stores a vault read and extends the share-price series: a point is added when the price changed
 * since the last point, or when the last point is older than `limits.sharePriceFlatGapMs`.
 */
export function setVault(s: DashboardState, v: VaultSnapshot): void {
  s.vault = { ...v };
  const last = s.sharePrice.at(-1);
  const changed = !last || !samePrice(last, v);
  const stale = last && v.readAt.getTime() - last.time.getTime() >= s.limits.sharePriceFlatGapMs;
  if (changed || stale) {
    addSharePricePoint(s, {
      time: v.readAt,
      totalUsdc: v.totalUsdc,
      totalShares: v.totalShares,
      lockedProfit: v.lockedProfit,
      ledger: v.ledger,
    });
  }
  touch(s);
}

/** Stores the vault configuration. */
export function setVaultConfig(s: DashboardState, c: VaultConfigSnapshot): void {
  s.vaultConfig = { ...c };
  touch(s);
}

/** Same share price: unlocked capital per share (the locked profit is not in it). */
function samePrice(
  a: SharePricePoint,
  v: { totalUsdc: bigint; totalShares: bigint; lockedProfit: bigint },
): boolean {
  const ua = a.totalUsdc - a.lockedProfit, uv = v.totalUsdc - v.lockedProfit;
  return ua * v.totalShares === uv * a.totalShares &&
    (a.totalShares === 0n) === (v.totalShares === 0n);
}

/**
 * Adds one share-price point, keeping the series sorted by time (points may be backfilled from
 * chain history) and bounded (oldest dropped).
 */
export function addSharePricePoint(s: DashboardState, p: SharePricePoint): void {
  const pts = s.sharePrice;
  const t = p.time.getTime();
  let i = pts.length;
  while (i > 0 && pts[i - 1].time.getTime() > t) i--;
  if (i > 0 && pts[i - 1].time.getTime() === t) pts[i - 1] = { ...p };
  else pts.splice(i, 0, { ...p });
  if (pts.length > s.limits.sharePricePoints) pts.splice(0, pts.length - s.limits.sharePricePoints);
  touch(s);
}

/** Replaces the known depositors' balances. */
export function setDepositors(s: DashboardState, rows: DepositorRow[]): void {
  s.depositors = rows.map((r) => ({ ...r }));
  touch(s);
}

/** Records this keeper's outstanding draw (from get_keeper_draw). */
export function setOutstandingDraw(s: DashboardState, amount: bigint | null): void {
  s.stats.outstandingDraw = amount;
  touch(s);
}

/** Records this keeper's native balance in stroops. */
export function setNativeBalance(s: DashboardState, stroops: bigint | null): void {
  s.stats.nativeBalance = stroops;
  touch(s);
}

/**
 * Counts one finished cycle. `errors` is the number of errors logged during it (already counted
 * one by one with {@link recordError}; kept here for the last-cycle summary).
 */
export function recordCycle(
  s: DashboardState,
  c: { startedAt: Date; durationMs: number; errors: number },
): void {
  s.stats.cycles++;
  s.stats.lastCycle = { number: s.stats.cycles, ...c };
  touch(s);
}

/** Counts errors (adapter, task, recovery, registration, …). */
export function recordError(s: DashboardState, n = 1): void {
  s.stats.errors += n;
  touch(s);
}

/**
 * Appends a liquidation record (newest last, bounded) and folds it into the stats. Profit is
 * max(0, proceeds − drew) for a fill and 0 otherwise: a lost race reverted (nothing lent).
 */
export function recordLiquidation(s: DashboardState, input: LiquidationInput): LiquidationRecord {
  if (input.drew < 0n || input.proceeds < 0n) throw new RangeError("amounts must be >= 0");
  const profit = input.outcome === "filled" && input.proceeds > input.drew
    ? input.proceeds - input.drew
    : 0n;
  const rec: LiquidationRecord = {
    ...input,
    auctionBlock: input.auctionBlock ?? null,
    ledgersAfterFirstProfitable: input.ledgersAfterFirstProfitable ?? null,
    note: input.note ?? null,
    id: s.nextLiquidationId++,
    profit,
    keeper: s.self.address,
    keeperName: s.self.name,
  };
  s.liquidations.push(rec);
  if (s.liquidations.length > s.limits.liquidations) {
    s.liquidations.splice(0, s.liquidations.length - s.limits.liquidations);
  }
  const st = s.stats;
  switch (input.outcome) {
    case "filled":
    case "held":
      // Both are successful fills; a held lot just could not be converted and returned yet.
      st.fills++;
      if (input.outcome === "held") st.held++;
      st.totalDrew += input.drew;
      st.totalProceeds += input.proceeds;
      st.totalProfit += profit;
      st.responseTimeSumMs += input.responseTimeMs;
      st.lastLiquidationAt = input.time;
      break;
    case "lost_race":
      st.lostRaces++;
      break;
    case "failed":
      st.failed++;
      break;
  }
  touch(s);
  return rec;
}

/**
 * Share price as 7-decimal units per share (floor), or null when there are no shares. Pass the
 * unlocked capital (total_usdc − locked_profit): that is what a share is worth.
 */
export function sharePriceUnits(unlockedUsdc: bigint, totalShares: bigint): bigint | null {
  if (totalShares <= 0n) return null;
  return (unlockedUsdc * 10_000_000n) / totalShares;
}

function finiteOrNull(n: number | null): number | null {
  return n !== null && Number.isFinite(n) ? n : null;
}
