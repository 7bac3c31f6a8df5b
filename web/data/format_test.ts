import assert from "node:assert/strict";
import {
  DASH,
  formatAmount,
  formatBps,
  formatCompact,
  formatCount,
  formatDuration,
  formatExact,
  formatMs,
  formatPercent,
  formatPrice,
  formatTime,
  formatUsdc,
  parseAmount,
  ratio,
  sharePrice,
  shortAddress,
  toBigInt,
} from "./format.ts";
import { describeReturn, MIN_ANNUALIZE_DAYS, type PricePoint, vaultReturn } from "./returns.ts";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 7, 1);

Deno.test("missing values render as an em-dash, never 0", () => {
  assert.equal(DASH, "\u2014");
  for (const f of [formatAmount, formatUsdc, formatExact, formatCompact, formatPrice]) {
    assert.equal(f(null), DASH);
    assert.equal(f(undefined), DASH);
  }
  assert.equal(formatPercent(null), DASH);
  assert.equal(formatPercent(NaN), DASH);
  assert.equal(formatPercent(Infinity), DASH);
  assert.equal(formatCount(null), DASH);
  assert.equal(formatDuration(undefined), DASH);
  assert.equal(formatMs(null), DASH);
  assert.equal(formatTime(null), DASH);
  assert.equal(formatTime("not a date"), DASH);
  assert.equal(shortAddress(""), DASH);
  assert.equal(formatBps(null), DASH);
  // Zero is a real value and is shown as such.
  assert.equal(formatAmount(0n), "0.00");
  assert.equal(formatCount(0), "0");
});

Deno.test("formatAmount: 7-decimal units, grouping, truncation toward zero", () => {
  assert.equal(formatAmount(12_345_678_900n), "1,234.56");
  assert.equal(formatAmount(12_345_678_999n), "1,234.56"); // truncated, not rounded up
  assert.equal(formatAmount(1n, { decimals: 7 }), "0.0000001");
  assert.equal(formatAmount(10_000_000n, { decimals: 0 }), "1");
  assert.equal(formatAmount(100_000_000_000_000_000n), "10,000,000,000.00");
  assert.equal(formatAmount(-25_000_000n), "-2.50");
  assert.equal(formatAmount(-1n), "0.00"); // no "-0.00"
  assert.equal(formatAmount(-1n, { decimals: 7 }), "-0.0000001");
  assert.equal(formatExact(25_960_334n), "2.5960334");
  assert.equal(formatExact(20_000_000n), "2");
  assert.equal(formatAmount(15_000_000n, { decimals: 7, trim: true, minDecimals: 2 }), "1.50");
  assert.equal(formatUsdc(1_000_000_000n), "100.00 USDC");
  // i128 extremes do not lose precision.
  const max = (1n << 127n) - 1n;
  assert.equal(
    formatAmount(max, { decimals: 7 }),
    "17,014,118,346,046,923,173,168,730,371,588.4105727",
  );
});

Deno.test("formatCompact truncates and picks a suffix", () => {
  assert.equal(formatCompact(9_999_990_000n), "999.99");
  assert.equal(formatCompact(99_999_999_999n), "9,999.99");
  assert.equal(formatCompact(100_000_000_000n), "10K");
  assert.equal(formatCompact(123_456_000_000n), "12.34K");
  assert.equal(formatCompact(100_000_000_000_000n), "10M");
  assert.equal(formatCompact(19_999_999_999_999_999n), "1.99B");
});

Deno.test("parseAmount accepts decimals up to 7 places and rejects junk", () => {
  assert.equal(parseAmount("12.5"), 125_000_000n);
  assert.equal(parseAmount("1,000"), 10_000_000_000n);
  assert.equal(parseAmount(" 0.0000001 "), 1n);
  assert.equal(parseAmount(".5"), 5_000_000n);
  assert.equal(parseAmount("7."), 70_000_000n);
  assert.equal(parseAmount("0"), 0n);
  for (const bad of ["", ".", "-1", "1e3", "abc", "1.00000001", "1.2.3", "0x10"]) {
    assert.equal(parseAmount(bad), null, bad);
  }
  // Round-trip with the exact formatter.
  for (const units of [1n, 10_000_000n, 123_456_789_012n]) {
    assert.equal(parseAmount(formatExact(units)), units);
  }
});

Deno.test("sharePrice floors and is unknown without shares", () => {
  assert.equal(sharePrice(625_960_334n, 600_000_000n), 10_432_672n);
  assert.equal(formatPrice(sharePrice(625_960_334n, 600_000_000n)), "1.0432672");
  assert.equal(sharePrice(10n, 3n), 33_333_333n);
  assert.equal(sharePrice(0n, 0n), null);
  assert.equal(sharePrice(5n, 0n), null);
  assert.equal(sharePrice(null, 5n), null);
});

Deno.test("percent, bps, counts, durations, addresses, times", () => {
  assert.equal(formatPercent(0.0123), "1.23 %");
  assert.equal(formatPercent(0.0123, { signed: true }), "+1.23 %");
  assert.equal(formatPercent(-0.05), "-5.00 %");
  assert.equal(formatPercent(-0.00001), "0.00 %");
  assert.equal(formatPercent(1), "100.00 %");
  assert.equal(formatPercent(0.07, { digits: 1 }), "7.0 %");
  assert.equal(formatBps(1000), "10 %");
  assert.equal(formatBps(125), "1.25 %");
  assert.equal(formatCount(1234567), "1,234,567");
  assert.equal(formatCount(12n), "12");
  assert.equal(formatDuration(45), "45s");
  assert.equal(formatDuration(200), "3m 20s");
  assert.equal(formatDuration(3600), "1h 00m");
  assert.equal(formatDuration(3725), "1h 02m");
  assert.equal(formatDuration(2 * 86400 + 3 * 3600), "2d 3h");
  assert.equal(formatDuration(-5), "0s");
  assert.equal(formatMs(850), "850 ms");
  assert.equal(formatMs(3234), "3.23 s");
  const g = "GCC5XKQTZ4E7ZNJ2FBIVJ6S5TQNPPNP44RC6SHCJTXD4VG5DNKQOWZ4E";
  assert.equal(shortAddress(g), "GCC5\u2026WZ4E");
  assert.equal(formatTime(Date.UTC(2026, 7, 9, 16, 45, 2)), "2026-08-09 16:45 UTC");
  assert.equal(formatTime("2026-08-09T16:45:02Z", true), "2026-08-09 16:45:02 UTC");
});

Deno.test("toBigInt and ratio", () => {
  assert.equal(toBigInt("625960334"), 625_960_334n);
  assert.equal(toBigInt("-5"), -5n);
  assert.equal(toBigInt(12), 12n);
  assert.equal(toBigInt(1.5), null);
  assert.equal(toBigInt("1.5"), null);
  assert.equal(toBigInt(null), null);
  assert.equal(ratio(1n, 4n), 0.25);
  assert.equal(ratio(1n, 0n), null);
  assert.equal(ratio(null, 3n), null);
});

function series(days: number, startPrice: bigint, endPrice: bigint): PricePoint[] {
  return [
    { t: T0, price: startPrice },
    { t: T0 + days * DAY / 2, price: (startPrice + endPrice) / 2n },
    { t: T0 + days * DAY, price: endPrice },
  ];
}

Deno.test("APY rule: cumulative below 7 days, annualized at exactly 7 days", () => {
  assert.equal(MIN_ANNUALIZE_DAYS, 7);
  const justUnder: PricePoint[] = [
    { t: T0, price: 10_000_000n },
    { t: T0 + 7 * DAY - 1, price: 10_100_000n },
  ];
  const r1 = vaultReturn(justUnder);
  assert.equal(r1.kind, "cumulative");
  assert.ok(Math.abs(r1.value! - 0.01) < 1e-12);
  assert.ok(r1.spanDays! < 7);

  const exactly = vaultReturn(series(7, 10_000_000n, 10_100_000n));
  assert.equal(exactly.kind, "apy");
  const expected = Math.pow(1.01, 365 / 7) - 1;
  assert.ok(Math.abs(exactly.value! - expected) < 1e-9, `${exactly.value} vs ${expected}`);
  assert.equal(exactly.spanDays, 7);

  const longer = vaultReturn(series(30, 10_000_000n, 10_432_672n));
  assert.equal(longer.kind, "apy");
  assert.ok(Math.abs(longer.value! - (Math.pow(1.0432672, 365 / 30) - 1)) < 1e-9);
});

Deno.test("APY rule: unknown with fewer than two points, order independent, labels", () => {
  assert.deepEqual(vaultReturn([]), { kind: "cumulative", value: null, spanDays: null });
  assert.equal(vaultReturn([{ t: T0, price: 10_000_000n }]).value, null);
  assert.equal(
    vaultReturn([{ t: T0, price: 10_000_000n }, { t: T0, price: 11_000_000n }]).value,
    null,
  );
  const pts = series(10, 10_000_000n, 10_050_000n);
  assert.deepEqual(vaultReturn([...pts].reverse()), vaultReturn(pts));
  // A zero price (empty vault) is ignored, not treated as -100 %.
  const withZero = [{ t: T0 - DAY, price: 0n }, ...series(2, 10_000_000n, 10_020_000n)];
  assert.ok(Math.abs(vaultReturn(withZero).value! - 0.002) < 1e-12);

  const none = describeReturn(vaultReturn([]));
  assert.equal(none.value, DASH);
  assert.match(none.note, /cumulative/);
  const cum = describeReturn(vaultReturn(series(2, 10_000_000n, 10_020_000n)));
  assert.equal(cum.label, "Return to date");
  assert.equal(cum.value, "+0.2000 %");
  assert.match(cum.note, /not annualized/);
  const apy = describeReturn(vaultReturn(series(8, 10_000_000n, 10_020_000n)));
  assert.equal(apy.label, "APY");
  assert.match(apy.note, /annualized/);
});

Deno.test("APY rule: a loss annualizes to a negative figure; overflow falls back", () => {
  const loss = vaultReturn(series(10, 10_000_000n, 9_900_000n));
  assert.equal(loss.kind, "apy");
  assert.ok(loss.value! < 0);
  // growth so large that annualizing overflows to Infinity → cumulative
  const huge = vaultReturn([{ t: T0, price: 1n }, { t: T0 + 7 * DAY, price: 10n ** 30n }]);
  assert.equal(huge.kind, "cumulative");
  assert.ok(Number.isFinite(huge.value!));
});
