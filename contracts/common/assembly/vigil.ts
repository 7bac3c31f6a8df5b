// Vigil's shared error table (contracts/registry/errors.ts is the source of the spec),
// checked i128 helpers that raise MathOverflow, the FlashPolicy layout the vault stores and
// the liquidator reads, and the two-step admin hand-over both the vault and the registry use.
import {
  addI128, del, expectAddress, fail, get, has, I128, INSTANCE, mulDivFloor, publish, put,
  requireAuth, Schema, subI128, symbol, variant0, vec1, vec2, VOID,
} from "../../sdk/index";

// FlashPolicy { executors, max_slippage_bps, pools, routers, tokens } (fields sorted by name).
let POLICY: Schema | null = null;
export function policySchema(): Schema {
  if (POLICY == null) POLICY = new Schema("executors,max_slippage_bps,pools,routers,tokens");
  return POLICY!;
}
export const F_EXECUTORS = 0;
export const F_SLIPPAGE = 1;
export const F_POOLS = 2;
export const F_ROUTERS = 3;
/** Tokens a swap path may pass through between its first and last token. */
export const F_TOKENS = 4;
/** Largest `max_slippage_bps` a policy may set (10 %). */
export const MAX_SLIPPAGE_BPS: u32 = 1000;

export const NotInit: u32 = 101;
export const AlreadyInitialized: u32 = 102;
export const Unauthorized: u32 = 103;
export const NotRegistered: u32 = 104;
export const AlreadyRegistered: u32 = 105;
export const InvalidAmount: u32 = 106;
export const InvalidConfig: u32 = 107;
export const MathOverflow: u32 = 108;
export const NothingPending: u32 = 109;
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
export const SwapBelowFloor: u32 = 165;

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

/** ceil(a * b / c) for a, b ≥ 0 and c > 0 (MathOverflow past i128). */
export function mulDivCeil(a: I128, b: I128, c: I128): I128 {
  const one = I128.of(1);
  const q = mulDiv(a, b, c);
  return mulDiv(q, c, one).lt(mulDiv(a, b, one)) ? add(q, one) : q;
}

/** True when 0 ≤ x ≤ i64::MAX (a bound of several configuration values). */
export function inI64(x: I128, min: i64): bool {
  return x.hi == 0 && x.lo <= (i64.MAX_VALUE as u64) && x.lo >= (min as u64);
}

// --- admin: two-step hand-over and renunciation (vault and registry)

function keyAdmin(): u64 { return variant0("Admin"); }
function keyPendingAdmin(): u64 { return variant0("PendingAdmin"); }

function adminEvent(name: string, data: u64): void {
  publish(vec1(symbol(name)), data);
}

/** Stores the first admin (constructors). */
export function initAdmin(admin: u64): void {
  put(keyAdmin(), expectAddress(admin), INSTANCE);
}

/** Requires the admin's auth; Unauthorized once the admin renounced. */
export function requireAdmin(): u64 {
  if (!has(keyAdmin(), INSTANCE)) fail(Unauthorized);
  const admin = get(keyAdmin(), INSTANCE);
  requireAuth(admin);
  return admin;
}

/** The admin, or VOID (Option::None) after `renounce_admin`. */
export function adminOrVoid(): u64 {
  return has(keyAdmin(), INSTANCE) ? get(keyAdmin(), INSTANCE) : VOID;
}

/** The proposed admin, or VOID. */
export function pendingAdminOrVoid(): u64 {
  return has(keyPendingAdmin(), INSTANCE) ? get(keyPendingAdmin(), INSTANCE) : VOID;
}

/** Admin auth: proposes `next` as the new admin (replaces an earlier proposal). */
export function proposeAdmin(next: u64): void {
  const admin = requireAdmin();
  put(keyPendingAdmin(), expectAddress(next), INSTANCE);
  adminEvent("admin_proposed", vec2(admin, next));
}

/** The proposed admin's auth: it becomes the admin (NothingPending without a proposal). */
export function acceptAdmin(): void {
  if (!has(keyPendingAdmin(), INSTANCE)) fail(NothingPending);
  const next = get(keyPendingAdmin(), INSTANCE);
  requireAuth(next);
  put(keyAdmin(), next, INSTANCE);
  del(keyPendingAdmin(), INSTANCE);
  adminEvent("admin_accepted", next);
}

/** Admin auth: no admin from now on (and no proposal); every admin function is Unauthorized. */
export function renounceAdmin(): void {
  dropAdmin(requireAdmin());
}

/**
 * Removes `admin`, already authorized by the caller in this frame (the real host refuses a second
 * `require_auth` of the same address in one frame: `Error(Auth, ExistingValue)`).
 */
export function dropAdmin(admin: u64): void {
  del(keyAdmin(), INSTANCE);
  if (has(keyPendingAdmin(), INSTANCE)) del(keyPendingAdmin(), INSTANCE);
  adminEvent("admin_renounced", admin);
}
