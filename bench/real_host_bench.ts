/**
 * The real Soroban host through FFI (`localnet/real_host/`): simulations/s and invocations/s of
 * the counter fixture's `increment` and of SAC transfers, their ratio to the home-made host this
 * node ran before issue 22 (figures recorded below), the FFI wrapper's own cost, and a pipe round
 * trip (the floor of a sidecar process design).
 *
 * Run: `deno run -A bench/real_host_bench.ts [seconds-per-case]`
 *
 * @module
 */
import { Address, Asset, authorizeEntry, Keypair, nativeToScVal } from "@stellar/stellar-sdk";
import { fixtureWasmSync } from "@vigil/testing/contracts/mod";
import { call, RealLedger } from "@vigil/testing/real_host/ledger";
import { RealHostError } from "@vigil/localnet/real_host/mod";
import { callInvoke } from "@vigil/localnet/real_host/ffi";

const seconds = Number(Deno.args[0] ?? 2);

/** Runs `f` for `seconds` after a warm-up; returns calls per second and prints a line. */
async function measure(name: string, f: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < 100; i++) await f();
  let n = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 20; i++) await f();
    n += 20;
  }
  const dt = (performance.now() - t0) / 1000;
  const rate = n / dt;
  console.log(
    `${name.padEnd(58)} ${rate.toFixed(0).padStart(7)} /s  (${(dt * 1e6 / n).toFixed(0)} µs each)`,
  );
  return rate;
}

// --- The real host -------------------------------------------------------------------------
const real = new RealLedger();
const admin = Keypair.random().publicKey();
const users = Array.from({ length: 64 }, () => Keypair.random().publicKey());
real.account(admin, 1_000_000_0000000n);
for (const u of users) real.account(u, 1_000_000_0000000n);
const counter = real.deploy(admin, fixtureWasmSync("counter"), [new Address(admin).toScVal()]);
const incFn = (u: string) =>
  call(counter, "increment", [new Address(u).toScVal(), nativeToScVal(1, { type: "u32" })]);

console.log("real host (soroban-env-host 27.0.1 through Deno FFI):");
const realGet = await measure("simulate counter.get (read-only)", () => {
  const r = real.simulate(admin, call(counter, "get", [new Address(users[0]).toScVal()]));
  if (!r.ok) throw new Error(r.error?.debug);
});
let i = 0;
const simSplit = { host: 0, wrapper: 0, n: 0 };
const realSim = await measure("simulate counter.increment", () => {
  const u = users[i++ % users.length];
  const r = real.simulate(u, incFn(u));
  if (!r.ok) throw new Error(r.error?.debug);
  simSplit.host += r.timing.hostUs;
  simSplit.wrapper += r.timing.wrapperUs;
  simSplit.n++;
});
console.log(
  `  of which in the library ${(simSplit.wrapper / simSplit.n).toFixed(0)} µs, ` +
    `soroban-simulation itself ${(simSplit.host / simSplit.n).toFixed(0)} µs`,
);
// Apply only: a prepared transaction per user (footprint + auth from one simulation each),
// re-applied; each apply increments the stored count. Counts exist first: updating an entry
// costs more than creating it, so a transaction simulated before the first increment would
// run out of its declared instructions on the second.
for (const u of users) real.run(u, incFn(u));
const prepared = users.map((u) => {
  const sim = real.simulate(u, incFn(u));
  return { u, fn: incFn(u), data: sim.transactionData!, auth: sim.auth };
});
const split = { host: 0, wrapper: 0, n: 0 };
const realApply = await measure("apply counter.increment (e2e_invoke)", () => {
  const p = prepared[i++ % prepared.length];
  const out = real.apply1(p.u, p.fn, p.data, p.auth);
  if (!out.ok) throw new Error(out.error?.debug);
  split.host += out.timing.hostUs;
  split.wrapper += out.timing.wrapperUs;
  split.n++;
});
console.log(
  `  of which in the library ${(split.wrapper / split.n).toFixed(0)} µs, ` +
    `the host call itself ${(split.host / split.n).toFixed(0)} µs`,
);
const realBoth = await measure("simulate + apply counter.increment", () => {
  const u = users[i++ % users.length];
  real.run(u, incFn(u));
});

// The native SAC: a transfer under source-account auth, and one signed by the sender (ed25519
// verified by the host) with another account as the transaction's source.
const userKeys = Array.from({ length: 16 }, () => Keypair.random());
for (const k of userKeys) real.account(k.publicKey(), 1_000_000_0000000n);
const realXlm = real.deploySac(admin, Asset.native());
const xfer = (from: string, to: string) =>
  call(realXlm, "transfer", [
    new Address(from).toScVal(),
    new Address(to).toScVal(),
    nativeToScVal(1n, { type: "i128" }),
  ]);
const realSacSource = await measure("simulate + apply SAC transfer (source auth)", () => {
  const from = users[i++ % users.length];
  const r = real.run(from, xfer(from, users[i % users.length]));
  if (!r.out.ok) throw new Error(r.out.error?.debug);
});
const realSacSigned = await measure(
  "simulate + sign + apply SAC transfer (address auth)",
  async () => {
    const from = userKeys[i++ % userKeys.length];
    const fn = xfer(from.publicKey(), users[i % users.length]);
    const sim = real.simulate(admin, fn);
    if (!sim.ok) throw new Error(sim.error?.debug);
    const auth = await Promise.all(
      sim.auth.map((a) => authorizeEntry(a, from, real.sequence + 10, real.passphrase)),
    );
    const out = real.apply1(admin, fn, sim.transactionData!, auth);
    if (!out.ok) throw new Error(out.error?.debug);
  },
);

// The wrapper's fixed cost: a request refused while parsing (JSON + FFI + one allocation).
await measure("FFI round trip (request refused at parse)", () => {
  try {
    callInvoke({});
  } catch (e) {
    if (!(e instanceof RealHostError)) throw e;
  }
});
// The JSON request of one apply, to size a sidecar's messages.
const p0 = prepared[0];
const fp = p0.data.resources.footprint;
const requestBytes = JSON.stringify({
  host_function: p0.fn.toXdr("base64"),
  resources: p0.data.resources.toXdr("base64"),
  auth: p0.auth.map((a) => a.toXdr("base64")),
  entries: [...fp.readOnly, ...fp.readWrite].map((k) => {
    const e = real.get(k);
    return e ? { entry: e.entry, live_until: e.liveUntil } : {};
  }),
}).length + 600;

// --- Before: the home-made host --------------------------------------------------------------
// The TypeScript host (`localnet/host/`, deleted in issue 22) measured by this bench on the same
// 2-core machine before it was removed (2026-11-27 18:08, 2 s per case, load average 0.9; see
// localnet/real_host/README.md). Kept as the "before" of the ratios below.
const homeGet = 52_019;
const homeSim = 29_028;
const homeBoth = 12_957;
const homeSacSource = 24_415;
const homeSacSigned = 799;

// --- A sidecar's floor: one request/response over pipes ----------------------------------------
// `cat` echoes what it reads: the cost of moving one apply-sized request to another process and
// a response of the same size back, with nothing done in between.
console.log("\nsidecar floor (pipe round trip to `cat`, no work):");
const child = new Deno.Command("cat", { stdin: "piped", stdout: "piped" }).spawn();
const writer = child.stdin.getWriter();
const reader = child.stdout.getReader();
const message = new Uint8Array(requestBytes).fill(0x61);
let pending: Uint8Array = new Uint8Array(0);
const pipeRate = await measure(`pipe round trip of ${requestBytes} bytes`, async () => {
  await writer.write(message);
  let got = pending.length;
  while (got < message.length) {
    const { value } = await reader.read();
    got += value!.length;
  }
  pending = new Uint8Array(got - message.length);
});
await writer.close();
reader.releaseLock();
await child.stdout.cancel();
await child.status;

console.log("\nratios (real / home-made host as measured before its removal):");
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
console.log(`  simulate counter.get          ${ratio(realGet, homeGet)}`);
console.log(`  simulate counter.increment    ${ratio(realSim, homeSim)}`);
console.log(`  simulate + apply increment    ${ratio(realBoth, homeBoth)}`);
console.log(`  SAC transfer, source auth     ${ratio(realSacSource, homeSacSource)}`);
console.log(`  SAC transfer, signed          ${ratio(realSacSigned, homeSacSigned)}`);
console.log(`  apply only (real)             ${realApply.toFixed(0)} /s`);
console.log(
  `  a sidecar would add ≥ ${(1e6 / pipeRate).toFixed(0)} µs per host call ` +
    `(${((1e6 / pipeRate) / (1e6 / realApply) * 100).toFixed(0)}% of one FFI apply)`,
);
