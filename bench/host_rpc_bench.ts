/**
 * End to end over JSON-RPC, the node on the real Soroban host: counter increments built,
 * simulated, signed, sent and confirmed with stellar-sdk per second — one client sending one
 * transaction at a time, and `clients` accounts sending concurrently (ledgers close 100 ms after
 * a transaction is queued, as in the tests). The home-made host it replaced measured 8.7/s and
 * 56.1/s (100 ms), 30.6/s and 149.1/s (5 ms) with `80 8` on the same machine (2026-11-27 18:24).
 *
 * Run: `deno run -A bench/host_rpc_bench.ts [transactions-per-case] [clients] [autoCloseMs]`
 *
 * @module
 */
import {
  Address,
  type Keypair,
  nativeToScVal,
  Operation,
  rpc,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "@vigil/testing/localnet";
import { sendOk } from "@vigil/testing/submit";
import { deployFixture } from "@vigil/testing/contracts/mod";

const count = Number(Deno.args[0] ?? 40);
const clients = Number(Deno.args[1] ?? 8);
/** ms from a queued transaction to the close of its ledger (the tests' 100; 5 shows host cost). */
const autoCloseMs = Number(Deno.args[2] ?? 100);

async function incrementOnce(node: TestNode, id: string, kp: Keypair): Promise<void> {
  const acc = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.invokeContractFunction({
      contract: id,
      function: "increment",
      args: [new Address(kp.publicKey()).toScVal(), nativeToScVal(1, { type: "u32" })],
    }))
    .setTimeout(60)
    .build();
  const sim = await node.server.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) throw new Error(sim.error);
  const ready = rpc.assembleTransaction(tx, sim).build();
  ready.sign(kp);
  await sendOk(node.server, ready);
}

async function bench(): Promise<void> {
  await using node = await startTestNode({ autoCloseMs });
  const admin = await node.newAccount();
  const id = await deployFixture(node, "counter", { admin: admin.publicKey() });
  const kps = await Promise.all(Array.from({ length: clients }, () => node.newAccount()));
  // Warm-up: each account's count entry exists, the module is cached.
  await Promise.all(kps.map((kp) => incrementOnce(node, id, kp)));
  let t0 = performance.now();
  for (let i = 0; i < count; i++) await incrementOnce(node, id, kps[0]);
  const serial = count / ((performance.now() - t0) / 1000);
  t0 = performance.now();
  const per = Math.ceil(count / clients);
  await Promise.all(kps.map(async (kp) => {
    for (let i = 0; i < per; i++) await incrementOnce(node, id, kp);
  }));
  const parallel = (per * clients) / ((performance.now() - t0) / 1000);
  console.log(
    `real host, autoClose ${autoCloseMs} ms  1 client: ${
      serial.toFixed(1)
    } tx/s   ${clients} clients: ${parallel.toFixed(1)} tx/s`,
  );
}

await bench();
