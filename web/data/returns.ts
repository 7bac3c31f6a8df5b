/**
 * The vault's return figure and the APY/cumulative rule of the spec:
 * APY is annualized only when the share-price series spans at least 7 days; otherwise the
 * figure is the cumulative return over the span and is labelled as such.
 *
 * @module
 */
import { DASH, formatPercent } from "./format.ts";

/** Minimum span of the share-price series before a return is annualized. */
export const MIN_ANNUALIZE_DAYS = 7;
const DAY_MS = 86_400_000;

/** One point of a share-price series: time (ms since epoch) and price (USDC per share). */
export interface PricePoint {
  t: number;
  /** Share price as 7-decimal fixed-point units (1.0 = 10_000_000n). */
  price: bigint;
}

/** The return of the vault over a series. */
export interface VaultReturn {
  /** "apy": annualized; "cumulative": growth over the span, not annualized. */
  kind: "apy" | "cumulative";
  /** The ratio (0.05 = 5 %), or null when it cannot be computed from real data. */
  value: number | null;
  /** Span of the series in days, or null with fewer than two points. */
  spanDays: number | null;
}

/**
 * Computes the vault's return from a share-price series (any order; points with a
 * non-positive price are ignored). With fewer than two points, or a zero span, the value
 * is unknown (null). An annualization that overflows falls back to cumulative.
 */
export function vaultReturn(series: readonly PricePoint[]): VaultReturn {
  const pts = series.filter((p) => p.price > 0n && Number.isFinite(p.t))
    .slice().sort((a, b) => a.t - b.t);
  if (pts.length < 2) return { kind: "cumulative", value: null, spanDays: null };
  const first = pts[0], last = pts[pts.length - 1];
  const spanMs = last.t - first.t;
  const spanDays = spanMs / DAY_MS;
  if (spanMs <= 0) return { kind: "cumulative", value: null, spanDays: 0 };
  // growth as a float from exact integers (12 significant digits).
  const growth = Number((last.price * 1_000_000_000_000n) / first.price) / 1e12;
  const cumulative = growth - 1;
  if (spanMs >= MIN_ANNUALIZE_DAYS * DAY_MS) {
    const apy = Math.pow(growth, 365 / spanDays) - 1;
    if (Number.isFinite(apy)) return { kind: "apy", value: apy, spanDays };
  }
  return { kind: "cumulative", value: cumulative, spanDays };
}

/** Label and text for a {@link VaultReturn}, e.g. for a tile. */
export function describeReturn(r: VaultReturn): { label: string; value: string; note: string } {
  const days = r.spanDays === null ? null : r.spanDays;
  const spanText = days === null
    ? "no share-price history yet"
    : days >= 1
    ? `over ${days.toFixed(1)} days`
    : `over ${(days * 24).toFixed(1)} hours`;
  if (r.kind === "apy") {
    return {
      label: "APY",
      value: formatPercent(r.value, { signed: true }),
      note: `annualized from the share price ${spanText}`,
    };
  }
  return {
    label: "Return to date",
    value: r.value === null ? DASH : formatPercent(r.value, { signed: true, digits: 4 }),
    note: `cumulative · not annualized (${spanText}; APY needs ${MIN_ANNUALIZE_DAYS} days)`,
  };
}
