/**
 * Ledger clock benchmark: how fast the node closes empty ledgers (`localnet_advanceTime` of
 * 200,000 seconds = 200,000 ledgers at the 1 s interval) and how many queued transactions a
 * ledger close applies per second (classic payments from distinct accounts, one ledger).
 *
 * `deno run -A bench/ledger_clock_bench.ts [ledgers] [txs]`
 *
 * @module
 */
import {
  Account,
  Asset,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
} from "@stellar/stellar-sdk";
import { Chain } from "@vigil/localnet/ledger";
import { realHostApi as host } from "@vigil/localnet/real_host/node_host";
import { loadAccount } from "@vigil/localnet/accounts";

const LEDGERS = Number(Deno.args[0] ?? 200_000);
const TXS = Number(Deno.args[1] ?? 1_000);

const chain = new Chain(Networks.STANDALONE, host, { capacity: { classicOps: TXS } });
let t0 = performance.now();
chain.advanceTime(LEDGERS);
const advMs = performance.now() - t0;
console.log(
  `advanceTime(${LEDGERS} s): ${LEDGERS} empty ledgers in ${advMs.toFixed(0)} ms ` +
    `(${Math.round(LEDGERS / (advMs / 1000))} ledgers/s); retained ${chain.ledgers.length}, ` +
    `heap ${(Deno.memoryUsage().heapUsed / 1e6).toFixed(0)} MB`,
);

// Hashes are computed lazily: the first read of the latest header hashes the whole burst.
t0 = performance.now();
void chain.latest.hash;
console.log(`first read of the latest ledger's hash: ${(performance.now() - t0).toFixed(0)} ms`);

// Fund TXS accounts in one create-account burst (root, one op each), then queue one payment
// from each and close a single ledger.
const root = chain.root;
const keys = Array.from({ length: TXS }, () => Keypair.random());
for (let i = 0; i < keys.length; i += 100) {
  const acc = loadAccount(chain.store, root.publicKey())!;
  const b = new TransactionBuilder(new Account(root.publicKey(), acc.seqNum.toString()), {
    fee: String(100 * 100),
    networkPassphrase: chain.passphrase,
  });
  for (const k of keys.slice(i, i + 100)) {
    b.addOperation(Operation.createAccount({ destination: k.publicKey(), startingBalance: "100" }));
  }
  const tx = b.setTimeout(0).build();
  tx.sign(root);
  const env = tx.toEnvelope();
  chain.submit(env, env.toXdr("base64"));
  chain.closeLedger();
}
const envs = keys.map((k) => {
  const acc = loadAccount(chain.store, k.publicKey())!;
  const tx = new TransactionBuilder(new Account(k.publicKey(), acc.seqNum.toString()), {
    fee: "100",
    networkPassphrase: chain.passphrase,
  }).addOperation(
    Operation.payment({ destination: root.publicKey(), asset: Asset.native(), amount: "1" }),
  ).setTimeout(0).build();
  tx.sign(k);
  const env = tx.toEnvelope();
  return { env, b64: env.toXdr("base64") };
});
t0 = performance.now();
for (const e of envs) chain.submit(e.env, e.b64);
const queueMs = performance.now() - t0;
t0 = performance.now();
const l = chain.closeLedger();
const closeMs = performance.now() - t0;
console.log(
  `queue ${TXS} payments: ${queueMs.toFixed(0)} ms (${Math.round(TXS / (queueMs / 1000))} tx/s); ` +
    `one close applied ${l.txs.length} in ${closeMs.toFixed(0)} ms ` +
    `(${Math.round(l.txs.length / (closeMs / 1000))} tx/s)`,
);
