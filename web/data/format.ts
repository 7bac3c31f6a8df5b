/**
 * Display formatting shared by the server renderer and the browser islands.
 *
 * Every formatter takes `null`/`undefined` for "unknown" and returns {@link DASH}: the
 * frontend never shows 0, 100 % or any other stand-in for a value it does not have.
 * Amounts are `bigint` in 7-decimal units (1 USDC = 10,000,000); display rounding always
 * truncates toward zero so a figure is never overstated.
 *
 * @module
 */

/** What a missing value renders as (U+2014 EM DASH). */
export const DASH = "\u2014";

/** Units per whole token (7 decimals). */
export const UNIT = 10_000_000n;
/** Decimal places of on-chain amounts. */
export const DECIMALS = 7;

type Maybe<T> = T | null | undefined;

/** Inserts thousands separators into a string of digits. */
function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * Formats a 7-decimal amount: `formatAmount(12345678900n) === "1,234.56"`.
 * `decimals` (0–7) is the number of fraction digits shown; the rest is truncated.
 * `trim` drops trailing fraction zeros (but keeps at least `minDecimals`).
 */
export function formatAmount(
  units: Maybe<bigint>,
  opts: { decimals?: number; trim?: boolean; minDecimals?: number } = {},
): string {
  if (units === null || units === undefined) return DASH;
  const decimals = Math.max(0, Math.min(DECIMALS, opts.decimals ?? 2));
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const whole = abs / UNIT;
  let frac = (abs % UNIT).toString().padStart(DECIMALS, "0").slice(0, decimals);
  if (opts.trim) {
    const min = Math.min(decimals, opts.minDecimals ?? 0);
    frac = frac.replace(/0+$/, "");
    if (frac.length < min) frac = frac.padEnd(min, "0");
  }
  const body = group(whole.toString()) + (frac.length > 0 ? "." + frac : "");
  // A value that truncates to zero keeps no sign ("-0.00" would be noise).
  const isZero = /^[0,.]*$/.test(body);
  return (neg && !isZero ? "-" : "") + body;
}

/**
 * The decimal policy for USDC on every page (one rule, so a figure reads the same everywhere):
 * - {@link USDC_DISPLAY_DECIMALS} (2) for display figures — totals, tiles, limits, tables, charts;
 * - {@link EXACT_DECIMALS} (7, every on-chain unit) where the exact unit matters — share counts,
 *   the share price, and the amounts a person acts on: their own position, wallet balance and
 *   stake, the forms, and what a write moved ({@link formatUsdcExact}).
 * Both truncate toward zero: a figure is never overstated.
 */
export const USDC_DISPLAY_DECIMALS = 2;
/** Decimal places where the exact unit matters (see {@link USDC_DISPLAY_DECIMALS}). */
export const EXACT_DECIMALS = 7;

/** Formats an amount with its unit: `"1,234.56 USDC"`, or the em-dash alone. */
export function formatUsdc(units: Maybe<bigint>, decimals = USDC_DISPLAY_DECIMALS): string {
  const s = formatAmount(units, { decimals });
  return s === DASH ? DASH : `${s} USDC`;
}

/** An exact USDC amount (all 7 decimals): `"1,234.5600000 USDC"` (see the decimal policy). */
export function formatUsdcExact(units: Maybe<bigint>): string {
  return formatUsdc(units, EXACT_DECIMALS);
}

/** Formats an amount with all 7 decimals, trailing zeros trimmed (for exact figures). */
export function formatExact(units: Maybe<bigint>): string {
  return formatAmount(units, { decimals: 7, trim: true });
}

/**
 * Compact amount for tiles: `1.23M`, `45.6K`, or the full figure below 10,000.
 * Truncates, never rounds up.
 */
export function formatCompact(units: Maybe<bigint>): string {
  if (units === null || units === undefined) return DASH;
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const sign = neg ? "-" : "";
  const steps: [bigint, string][] = [
    [1_000_000_000n * UNIT, "B"],
    [1_000_000n * UNIT, "M"],
    [10_000n * UNIT, "K"],
  ];
  for (const [size, suffix] of steps) {
    if (abs >= size) {
      const div = suffix === "K" ? 1_000n * UNIT : size;
      const hundredths = (abs * 100n) / div;
      const whole = hundredths / 100n;
      const frac = (hundredths % 100n).toString().padStart(2, "0").replace(/0+$/, "");
      return sign + group(whole.toString()) + (frac ? "." + frac : "") + suffix;
    }
  }
  return sign + formatAmount(abs, { decimals: 2 });
}

/**
 * Parses a user-entered token amount ("12.5", "1,000") into 7-decimal units.
 * Returns null for anything that is not a non-negative decimal with at most 7 fraction digits.
 */
export function parseAmount(text: string): bigint | null {
  const s = text.trim().replace(/[,_\s]/g, "");
  const m = /^(\d*)(?:\.(\d*))?$/.exec(s);
  if (!m || (m[1] === "" && (m[2] ?? "") === "")) return null;
  const frac = m[2] ?? "";
  if (frac.length > DECIMALS) return null;
  return BigInt(m[1] || "0") * UNIT + BigInt(frac.padEnd(DECIMALS, "0") || "0");
}

/**
 * Share price (USDC per share) as a 7-decimal fixed-point bigint, floored:
 * total_usdc × 10^7 / total_shares. Null when there are no shares (no price exists yet).
 */
export function sharePrice(
  totalUsdc: Maybe<bigint>,
  totalShares: Maybe<bigint>,
): bigint | null {
  if (totalUsdc === null || totalUsdc === undefined) return null;
  if (totalShares === null || totalShares === undefined || totalShares <= 0n) return null;
  return (totalUsdc * UNIT) / totalShares;
}

/**
 * The vault's share price as depositors get it (7 decimals, floored): USDC that prices the shares
 * — total_usdc less the flash profit still locked (issue 20: it unlocks linearly, so a
 * just-in-time deposit cannot buy into it) — over total_shares. Null when unknown or no shares.
 */
export function vaultSharePrice(
  s: Maybe<{ total_usdc: bigint; total_shares: bigint; locked_profit: bigint }>,
): bigint | null {
  return s ? sharePrice(s.total_usdc - s.locked_profit, s.total_shares) : null;
}

/** Formats a 7-decimal share price with all 7 decimals: "1.0432672". */
export function formatPrice(price7: Maybe<bigint>): string {
  return formatAmount(price7, { decimals: 7 });
}

/**
 * Formats a ratio (0.0123 = 1.23 %) as a percentage. Non-finite ratios are unknown.
 * `signed` prefixes "+" on positive values.
 */
export function formatPercent(
  ratio: Maybe<number>,
  opts: { digits?: number; signed?: boolean } = {},
): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return DASH;
  const digits = opts.digits ?? 2;
  const pct = ratio * 100;
  const factor = 10 ** digits;
  // Truncate toward zero like the amounts do; avoid "-0.00".
  const t = Math.trunc(pct * factor + (pct >= 0 ? 1e-9 : -1e-9)) / factor;
  const body = Math.abs(t).toFixed(digits);
  const sign = t < 0 ? "-" : opts.signed && t > 0 ? "+" : "";
  return `${sign}${body} %`;
}

/** Basis points → percentage text: 1000 → "10 %". */
export function formatBps(bps: Maybe<number | bigint>): string {
  if (bps === null || bps === undefined) return DASH;
  const n = Number(bps);
  if (!Number.isFinite(n)) return DASH;
  const s = (n / 100).toFixed(2).replace(/\.?0+$/, "");
  return `${s} %`;
}

/** Formats an integer count with thousands separators. */
export function formatCount(n: Maybe<number | bigint>): string {
  if (n === null || n === undefined) return DASH;
  if (typeof n === "number" && !Number.isFinite(n)) return DASH;
  const s = typeof n === "bigint" ? n.toString() : Math.trunc(n).toString();
  return s.startsWith("-") ? "-" + group(s.slice(1)) : group(s);
}

/** Seconds → "1h 05m", "3m 20s", "45s", "2d 3h". */
export function formatDuration(seconds: Maybe<number | bigint>): string {
  if (seconds === null || seconds === undefined) return DASH;
  let s = Math.max(0, Math.floor(Number(seconds)));
  if (!Number.isFinite(s)) return DASH;
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const p2 = (n: number) => n.toString().padStart(2, "0");
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${p2(m)}m`;
  if (m > 0) return `${m}m ${p2(s)}s`;
  return `${s}s`;
}

/** Milliseconds → "850 ms" / "3.20 s". */
export function formatMs(ms: Maybe<number | bigint>): string {
  if (ms === null || ms === undefined) return DASH;
  const n = Number(ms);
  if (!Number.isFinite(n) || n < 0) return DASH;
  if (n < 1000) return `${Math.round(n)} ms`;
  return `${(n / 1000).toFixed(2)} s`;
}

/** "GABC…WXYZ" for a G/C address; other strings unchanged. */
export function shortAddress(addr: Maybe<string>, keep = 4): string {
  if (!addr) return DASH;
  if (addr.length <= keep * 2 + 1) return addr;
  return `${addr.slice(0, keep)}\u2026${addr.slice(-keep)}`;
}

/** Shortens a transaction hash: "ab12cd…9f". */
export function shortHash(hash: Maybe<string>): string {
  if (!hash) return DASH;
  return hash.length > 14 ? `${hash.slice(0, 8)}\u2026${hash.slice(-4)}` : hash;
}

/**
 * Formats a time (Date, ms since epoch, or ISO string) as "2026-08-09 16:45 UTC".
 * Always UTC, so server and browser render the same text (no hydration mismatch).
 */
export function formatTime(t: Maybe<Date | number | string>, withSeconds = false): string {
  if (t === null || t === undefined || t === "") return DASH;
  const d = t instanceof Date ? t : new Date(t);
  if (Number.isNaN(d.getTime())) return DASH;
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, withSeconds ? 19 : 16)} UTC`;
}

/** Short date for chart axes: "Aug 9". */
export function formatDay(t: Maybe<Date | number>): string {
  if (t === null || t === undefined) return DASH;
  const d = t instanceof Date ? t : new Date(t);
  if (Number.isNaN(d.getTime())) return DASH;
  const months = [
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
  ];
  return `${months[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/**
 * Parses an amount that crossed JSON (the keeper API sends decimal strings of 7-decimal
 * units). Returns null for anything that is not an integer string or safe integer number.
 */
export function toBigInt(v: unknown): bigint | null {
  if (typeof v === "bigint") return v;
  if (typeof v === "string" && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  return null;
}

/** Ratio a/b of two bigints as a float (null when b is 0 or a value is unknown). */
export function ratio(a: Maybe<bigint>, b: Maybe<bigint>): number | null {
  if (a === null || a === undefined || b === null || b === undefined || b === 0n) return null;
  // Scale to keep 12 significant digits before leaving integer arithmetic.
  const scaled = (a * 1_000_000_000_000n) / b;
  return Number(scaled) / 1e12;
}
