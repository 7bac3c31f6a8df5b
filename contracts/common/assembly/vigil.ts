// Vigil's shared error table (contracts/registry/errors.ts is the source of the spec),
// checked i128 helpers that raise MathOverflow, and the FlashPolicy layout the vault stores and
// the liquidator reads.
import { addI128, I128, mulDivFloor, Schema, subI128 } from "../../sdk/index";

// FlashPolicy { executors, max_slippage_bps, pools, routers } (fields sorted by name).
let POLICY: Schema | null = null;
export function policySchema(): Schema {
  if (POLICY == null) POLICY = new Schema("executors,max_slippage_bps,pools,routers");
  return POLICY!;
}
export const F_EXECUTORS = 0;
export const F_SLIPPAGE = 1;
export const F_POOLS = 2;
export const F_ROUTERS = 3;

export const NotInit: u32 = 101;
export const AlreadyInitialized: u32 = 102;
export const Unauthorized: u32 = 103;
export const NotRegistered: u32 = 104;
export const AlreadyRegistered: u32 = 105;
export const InvalidAmount: u32 = 106;
export const InvalidConfig: u32 = 107;
export const MathOverflow: u32 = 108;
export const StakeBelowMinimum: u32 = 123;
export const InvalidName: u32 = 124;
export const RegistryFull: u32 = 125;
export const DepositCapExceeded: u32 = 140;
export const WithdrawCooldown: u32 = 141;
export const InsufficientShares: u32 = 142;
export const InsufficientLiquidity: u32 = 143;
export const DrawLimitExceeded: u32 = 144;
export const ZeroShares: u32 = 145;
export const ZeroPayout: u32 = 146;
export const PoolInsolvent: u32 = 147;
export const FlashNotRepaid: u32 = 148;
export const ExecutorNotAllowed: u32 = 149;
export const LiquidationShortfall: u32 = 160;
export const InvalidPlan: u32 = 161;
export const NotAllowed: u32 = 162;
export const PositionsChanged: u32 = 163;
export const PriceUnavailable: u32 = 164;

/** TTL policy (ledgers): entries below ~14 days are extended to ~30 days. */
export const TTL_THRESHOLD: u32 = 17280 * 14;
export const TTL_EXTEND_TO: u32 = 17280 * 30;

export function add(a: I128, b: I128): I128 {
  return addI128(a, b, MathOverflow);
}

export function sub(a: I128, b: I128): I128 {
  return subI128(a, b, MathOverflow);
}

export function mulDiv(a: I128, b: I128, c: I128): I128 {
  return mulDivFloor(a, b, c, MathOverflow);
}

/** True when 0 ≤ x ≤ i64::MAX (a bound of several configuration values). */
export function inI64(x: I128, min: i64): bool {
  return x.hi == 0 && x.lo <= (i64.MAX_VALUE as u64) && x.lo >= (min as u64);
}
