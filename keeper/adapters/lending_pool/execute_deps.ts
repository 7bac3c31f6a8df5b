/**
 * What executing a liquidation needs (the lending-pool adapter builds it per task) and the task's
 * payload, shared by the liquidation's steps.
 *
 * @module
 */
import type { AuctionData, Positions } from "@blend-capital/blend-sdk";
import type { LedgerClock } from "@vigil/soroban/ledger";
import type { InvokeOptions } from "@vigil/soroban/tx";
import type { SwapClient } from "../../dex/swap_client.ts";
import type { WaitReason } from "../outcome.ts";
import type { PoolCache } from "./pool_state.ts";
import type { ChannelLease } from "../../channels.ts";

/** Where a flash gets its channel account: the keeper's `ChannelPool` (keeper/channels.ts). */
export interface ChannelSource {
  /** Channels ready to use (0: the keeper's account sends). */
  readonly size: number;
  acquire(): Promise<ChannelLease | undefined>;
}

/** What the lending-pool adapter needs to execute. */
export interface ExecuteDeps {
  poolId: string;
  /** USDC_CONTRACT (the vault's settlement token). */
  usdc: string;
  /** LIQUIDATOR_CONTRACT: the flash executor that fills, swaps and repays. */
  liquidator: string;
  minProfit: number;
  pollIntervalSec: number;
  dex?: SwapClient;
  /**
   * The routers of the vault's flash policy: swaps inside the flash use only Soroswap-ABI venues
   * whose router is listed (undefined: every Soroswap-ABI venue).
   */
  routers?: ReadonlySet<string>;
  /** The flash policy's `max_slippage_bps`: the planned floors are never looser than it. */
  maxSlippageBps?: number;
  /** The flash policy's hop tokens: a swap path passes only through these (or is direct). */
  tokens?: readonly string[];
  cache: PoolCache;
  clock: LedgerClock;
  invoke?: InvokeOptions;
  log: (level: "info" | "warn", msg: string, fields?: Record<string, unknown>) => void;
  /** The largest flash the keeper may take now (vault idle and per-flash cap); undefined = unknown. */
  availableCapital?: () => Promise<bigint | undefined>;
  /** Called when positions changed because of us (re-read next sync). */
  touched?: (...users: string[]) => void;
  signal?: AbortSignal;
  /**
   * Assets the keeper account is known to hold a trustline for (or need none): checked once per
   * run, since the keeper never removes one. Undefined: checked at every liquidation.
   */
  trusted?: Set<string>;
  /**
   * The keeper's channel accounts (CHANNEL_ACCOUNTS): the flash is sent from one, leased only
   * for the send itself, so liquidations wait for their ledgers side by side and only the sends
   * need a channel each. Undefined or none ready: the keeper's account sends.
   */
  channels?: ChannelSource;

  /**
   * Pooled keepers split the work (issue 26, `split.ts`): called once the first profitable block
   * `target` is known; a wait reason when this keeper is a backup whose turn has not come (it
   * may wait in it for a turn near enough). Undefined: go on.
   */
  awaitTurn?: (
    auction: AuctionData,
    target: number,
    next: number,
    spl: number,
  ) => Promise<WaitReason | undefined>;
}

/** The task payload of a liquidation. */
export interface LiquidationTask {
  user: string;
  positions: Positions;
  hf: number | null;
}
