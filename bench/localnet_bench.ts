/**
 * Benchmark of the local node on one core: simulations/s and transactions/s over real HTTP
 * JSON-RPC (pre-built, pre-signed envelopes, so the figures are the node's own cost plus
 * loopback HTTP), for a SAC transfer and a contract call; plus the in-process `invoke` fast
 * path used for seeding, and getEvents over a long history.
 *
 * Run: `deno run -A bench/localnet_bench.ts [N]` (default N = 400); pin it to one core with
 * `taskset -c 0 deno run -A bench/localnet_bench.ts` (the client runs in the same thread, so
 * the figures include the SDK-free client's own JSON/fetch cost).
 */
import { jsonRpc, submitEnvelope } from "@vigil/testing/submit";
import {
  Account,
  Address,
  Asset,
  Keypair,
  nativeToScVal,
  Operation,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { seedTrustline } from "@vigil/localnet/dev_setup";
import { type Localnet, startLocalnet } from "@vigil/localnet/node";

const N = Number(Deno.args[0] ?? 400);

/** A JSON-RPC request to the node over plain fetch (no SDK cost in the figures). */
const call = (net: Localnet, method: string, params: unknown) =>
  jsonRpc(net.rpcUrl, method, params);

function rate(count: number, ms: number): string {
  return `${(count / (ms / 1000)).toFixed(0)}/s (${(ms / count).toFixed(2)} ms each, n=${count})`;
}

/** Pre-builds `n` signed envelopes of one op with consecutive sequence numbers. */
function buildSigned(
  net: Localnet,
  kp: Keypair,
  seq: bigint,
  op: xdr.Operation,
  sim: { transactionData: string; minResourceFee: string; results: { auth: string[] }[] },
  n: number,
): string[] {
  const data = xdr.SorobanTransactionData.fromXdr(sim.transactionData, "base64");
  const auth = sim.results[0].auth.map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, "base64"));
  const body = op.body;
  if (body.type !== "invokeHostFunction") throw new Error("not an invoke");
  const out: string[] = [];
  const acc = new Account(kp.publicKey(), seq.toString());
  for (let i = 0; i < n; i++) {
    const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: net.networkPassphrase })
      .addOperation(
        Operation.invokeHostFunction({ func: body.invokeHostFunctionOp.hostFunction, auth }),
      )
      .setSorobanData(data)
      .setTimeout(0)
      .build();
    tx.sign(kp);
    out.push(tx.toEnvelope().toXdr("base64"));
  }
  return out;
}

async function benchCall(net: Localnet, label: string, kp: Keypair, op: xdr.Operation) {
  const acc = await new rpc.Server(net.rpcUrl, { allowHttp: true }).getAccount(kp.publicKey());
  const seq0 = BigInt(acc.sequenceNumber());
  const unsigned = new TransactionBuilder(acc, {
    fee: "100",
    networkPassphrase: net.networkPassphrase,
  }).addOperation(op).setTimeout(0).build().toEnvelope().toXdr("base64");
  // Warm up, then simulations.
  let sim = await call(net, "simulateTransaction", { transaction: unsigned });
  if (sim.error) throw new Error(sim.error);
  let t0 = performance.now();
  for (let i = 0; i < N; i++) {
    sim = await call(net, "simulateTransaction", { transaction: unsigned });
  }
  const simMs = performance.now() - t0;
  // Transactions: sendTransaction of pre-signed envelopes from one account. The node queues
  // one transaction per account, so a ledger closes (in-process) after each send: the figure
  // is send + validation + application + ledger close per transaction.
  const envs = buildSigned(net, kp, seq0, op, sim, N);
  t0 = performance.now();
  const hashes: string[] = [];
  for (const e of envs) {
    const r = await submitEnvelope(net.rpcUrl, e);
    if (r.status !== "PENDING") throw new Error(`send: ${JSON.stringify(r)}`);
    hashes.push(r.hash);
    net.chain.closeLedger();
  }
  const txMs = performance.now() - t0;
  for (const hash of hashes) {
    const last = await call(net, "getTransaction", { hash });
    if (last.status === "SUCCESS") continue;
    const d = (last.diagnosticEventsXdr ?? []).map((e: string) =>
      JSON.stringify(xdr.DiagnosticEvent.fromXdr(e, "base64").toJson())
    );
    throw new Error(`tx ${last.status}: ${last.resultXdr} ${d.join("\n")}`);
  }
  console.log(`${label}: simulateTransaction ${rate(N, simMs)}`);
  console.log(`${label}: sendTransaction     ${rate(N, txMs)} (all SUCCESS)`);
}

async function main() {
  const net = await startLocalnet({ port: 0, ledgerMs: 0, autoCloseMs: 0, onError: () => {} });
  try {
    const issuer = Keypair.random();
    const alice = Keypair.random();
    const bob = Keypair.random();
    for (const kp of [issuer, alice, bob]) await net.fund(kp.publicKey(), 1_000_000n);
    const usdc = new Asset("USDC", issuer.publicKey());
    const sac = await net.deployAsset(usdc);
    seedTrustline(net, alice.publicKey(), usdc, 10_000_000n * 10_000_000n);
    seedTrustline(net, bob.publicKey(), usdc, 0n);
    const counter = await deployFixture(net, "counter", { admin: issuer.publicKey() });
    await net.closeLedgers(1);

    console.log(`localnet bench (Deno ${Deno.version.deno}, one thread, loopback HTTP)`);
    const transfer = Operation.invokeContractFunction({
      contract: sac,
      function: "transfer",
      args: [
        new Address(alice.publicKey()).toScVal(),
        new Address(bob.publicKey()).toScVal(),
        nativeToScVal(1_0000000n, { type: "i128" }),
      ],
    });
    await benchCall(net, "SAC transfer (G→G, USDC)", alice, transfer);
    // Create alice's counter entry first, so every benchmarked call reads and writes the same
    // entries as the one simulated (like transfers between existing balances).
    await net.invoke(counter, "increment", { user: alice.publicKey(), by: 1 });
    const incr = Operation.invokeContractFunction({
      contract: counter,
      function: "increment",
      args: [new Address(alice.publicKey()).toScVal(), nativeToScVal(1, { type: "u32" })],
    });
    await benchCall(net, "contract call (counter.increment)", alice, incr);

    // In-process fast path (seeding): invoke into the open ledger, one close at the end.
    const users: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const kp = Keypair.random();
      await net.fund(kp.publicKey(), 10n);
      users.push(kp.publicKey());
    }
    let t0 = performance.now();
    for (const u of users) await net.invoke(counter, "increment", { user: u, by: 1 });
    await net.closeLedgers(1);
    const invMs = performance.now() - t0;
    console.log(`in-process invoke (counter.increment, mocked auth): ${rate(users.length, invMs)}`);

    // getEvents over the whole history (every tx above emitted an event).
    t0 = performance.now();
    const latest = net.latestLedger().sequence;
    const start = Math.max(1, latest - 9_999);
    let pages = 0;
    let events = 0;
    let page = await call(net, "getEvents", {
      startLedger: start,
      filters: [{ contractIds: [counter] }],
      pagination: { limit: 1000 },
    });
    for (;;) {
      pages++;
      events += page.events.length;
      if (page.events.length < 1000) break;
      page = await call(net, "getEvents", {
        filters: [{ contractIds: [counter] }],
        pagination: { cursor: page.cursor, limit: 1000 },
      });
    }
    const evMs = performance.now() - t0;
    console.log(
      `getEvents: ${events} events over ${latest - start + 1} ledgers in ${pages} pages, ${
        evMs.toFixed(1)
      } ms`,
    );
    t0 = performance.now();
    for (let i = 0; i < 200; i++) {
      await call(net, "getEvents", {
        startLedger: Math.max(1, latest - 20),
        filters: [{ contractIds: [counter], topics: [["*", "*"]] }],
        pagination: { limit: 100 },
      });
    }
    console.log(`getEvents poll (last 20 ledgers): ${rate(200, performance.now() - t0)}`);
  } finally {
    await net.close();
  }
}

if (import.meta.main) await main();
