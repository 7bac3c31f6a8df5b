/**
 * Benchmark of the contract host in-process (no RPC, no ledger closes): invocations per second
 * for a read-only simulation, a simulation + enforced apply of a contract call (the Wasm
 * counter fixture, `tests/fixtures/contracts/counter/`), and SAC
 * transfers with a signed address credential.
 *
 * Run: `deno run -A bench/host_bench.ts [seconds-per-case]`
 *
 * @module
 */
import { Asset, Keypair } from "@stellar/stellar-sdk";
import { COUNTER_SPEC } from "../tests/fixtures/contracts/counter/spec.ts";
import { encodeArgs, sacCodec } from "../localnet/host/mod.ts";
import { apply, MemLedger, signEntries, simulate } from "../tests/host/fixture.ts";

const seconds = Number(Deno.args[0] ?? 2);

async function measure(name: string, f: () => unknown | Promise<unknown>): Promise<void> {
  // Warm up (JIT, caches).
  for (let i = 0; i < 200; i++) await f();
  let n = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) await f();
    n += 50;
  }
  const dt = (performance.now() - t0) / 1000;
  console.log(
    `${name.padEnd(52)} ${(n / dt).toFixed(0).padStart(7)} /s  (${
      (dt * 1e6 / n).toFixed(0)
    } µs each)`,
  );
}

const l = new MemLedger();
const admin = Keypair.random();
const users = Array.from({ length: 64 }, () => Keypair.random());
l.account(admin.publicKey(), 1_000_000_0000000n);
for (const u of users) l.account(u.publicKey(), 1_000_000_0000000n);
const counter = l.deploy("counter", { admin: admin.publicKey() }, admin.publicKey());
const xlm = l.deploySac(Asset.native());

const getArgs = encodeArgs(COUNTER_SPEC, "get", [users[0].publicKey()]);
await measure("simulate counter.get (read-only)", () => {
  const r = simulate(l, admin.publicKey(), counter, "get", getArgs);
  if (!r.ok) throw new Error(r.errorString);
});

let i = 0;
await measure("simulate + apply counter.increment (source auth)", () => {
  const u = users[i++ % users.length].publicKey();
  const a = encodeArgs(COUNTER_SPEC, "increment", { user: u, by: 1 });
  const sim = simulate(l, u, counter, "increment", a);
  const r = apply(l, u, counter, "increment", a, sim.auth, sim);
  if (!r.ok) throw new Error(r.errorString);
});

await measure("simulate + apply SAC transfer (source auth)", () => {
  const from = users[i++ % users.length].publicKey();
  const to = users[i % users.length].publicKey();
  const a = encodeArgs(sacCodec, "transfer", [from, to, 1n]);
  const sim = simulate(l, from, xlm, "transfer", a);
  const r = apply(l, from, xlm, "transfer", a, sim.auth, sim);
  if (!r.ok) throw new Error(r.errorString);
});

await measure("simulate + sign + apply SAC transfer (address auth)", async () => {
  const from = users[i++ % users.length];
  const to = users[i % users.length].publicKey();
  const a = encodeArgs(sacCodec, "transfer", [from.publicKey(), to, 1n]);
  const sim = simulate(l, admin.publicKey(), xlm, "transfer", a);
  const auth = await signEntries(sim.auth, [from], l.sequence + 10);
  const r = apply(l, admin.publicKey(), xlm, "transfer", a, auth, sim);
  if (!r.ok) throw new Error(r.errorString);
});
