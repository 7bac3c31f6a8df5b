import assert from "node:assert/strict";
import { chainDuration, depositBlock, depositMax, withdrawBlock, withdrawMax } from "./forms.ts";
import { UNIT } from "./format.ts";

const usdc = (n: number) => BigInt(n) * UNIT;

Deno.test("depositBlock: balance, cap and amount are checked before the click", () => {
  const ok = { amount: usdc(10), balance: usdc(100), capLeft: usdc(1000) };
  assert.equal(depositBlock(ok), null);
  assert.match(depositBlock({ ...ok, balance: 0n })!, /holds no USDC/);
  assert.match(depositBlock({ ...ok, capLeft: 0n })!, /at its deposit cap/);
  assert.match(depositBlock({ ...ok, amount: null })!, /Enter an amount/);
  assert.match(depositBlock({ ...ok, amount: usdc(101) })!, /More than your wallet's 100\.0000000/);
  assert.match(
    depositBlock({ ...ok, capLeft: usdc(5) })!,
    /Over the deposit cap: at most 5\.0000000 USDC fits/,
  );
  // Unknown balance or cap: not blocked on them (the contract still checks).
  assert.equal(depositBlock({ ...ok, balance: null, capLeft: null }), null);
});

Deno.test("depositMax fills the smaller of balance and cap room, and says which", () => {
  assert.deepEqual(depositMax({ amount: null, balance: usdc(50), capLeft: usdc(900) }), {
    value: usdc(50),
    note: "Max filled your wallet's 50.0000000 USDC.",
  });
  const capped = depositMax({ amount: null, balance: usdc(50), capLeft: usdc(20) })!;
  assert.equal(capped.value, usdc(20));
  assert.match(capped.note, /room under the deposit cap/);
  assert.match(depositMax({ amount: null, balance: 0n, capLeft: usdc(1) })!.note, /Max is 0/);
  assert.match(depositMax({ amount: null, balance: usdc(1), capLeft: 0n })!.note, /deposit cap/);
  assert.equal(depositMax({ amount: null, balance: null, capLeft: null }), null);
});

Deno.test("withdrawBlock: nothing held, cooldown with chain time left, more than withdrawable", () => {
  const base = { amount: usdc(1), shares: usdc(10), free: usdc(10), unlockIn: 0, rate: null };
  assert.equal(withdrawBlock(base), null);
  assert.match(withdrawBlock({ ...base, shares: 0n, free: 0n })!, /hold no shares/);
  const cooling = withdrawBlock({ ...base, free: 0n, unlockIn: 250, rate: 5 })!;
  assert.match(cooling, /withdraw cooldown: 4m 10s of chain time \(about 50s real\) left/);
  assert.match(
    withdrawBlock({ ...base, amount: usdc(11), free: usdc(4), unlockIn: 60, rate: 1 })!,
    /More than the 4\.0000000 shares you can withdraw now \(the rest unlock in 1m 00s of chain time\)/,
  );
});

Deno.test("withdrawMax explains what it filled and why 0", () => {
  const base = { amount: null, shares: usdc(10), free: usdc(10), unlockIn: 0, rate: null };
  assert.match(withdrawMax(base)!.note, /every share you can withdraw now, 10\.0000000/);
  const z = withdrawMax({ ...base, free: 0n, unlockIn: 90, rate: 5 })!;
  assert.equal(z.value, 0n);
  assert.match(z.note, /Max is 0: your shares unlock in 1m 30s of chain time \(about 18s real\)/);
  assert.match(withdrawMax({ ...base, shares: 0n, free: 0n })!.note, /hold no shares/);
  assert.match(
    withdrawMax({ ...base, free: usdc(3) })!.note,
    /the rest are still in their cooldown/,
  );
});

Deno.test("chainDuration: real time only when the chain clock runs at another rate", () => {
  assert.equal(chainDuration(3600, null), "1h 00m of chain time");
  assert.equal(chainDuration(3600, 1.1), "1h 00m of chain time");
  assert.equal(chainDuration(300, 5), "5m 00s of chain time (about 1m 00s real)");
});
