/**
 * Helpers for the lending-pool / oracle / market suites: a fresh node with the market deployed,
 * sending and simulating operations built by the Blend SDK (its stellar-sdk 14 XDR crosses as
 * base64 only), raw JSON-RPC calls and error-code extraction.
 *
 * @module
 */
import {
  Account,
  Asset,
  Contract,
  Keypair,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "../localnet.ts";
import { seedTrustline, setupDevChain } from "@vigil/localnet/dev_setup";
import {
  deployMarket,
  type DevChain,
  type Market,
  type MarketOptions,
  registerShock,
} from "@vigil/localnet/scenarios/market";

/** A node with the dev chain and the market, plus the Blend SDK network object. */
export interface MarketFixture {
  node: TestNode;
  base: DevChain;
  market: Market;
  network: { rpc: string; passphrase: string; opts: { allowHttp: boolean } };
}

/** Starts a node, deploys the dev chain and the market and registers `localnet_shock`. */
export async function startMarket(opts: MarketOptions = {}): Promise<MarketFixture> {
  const node = await startTestNode();
  try {
    const base = await setupDevChain(node);
    const market = await deployMarket(node, base, opts);
    registerShock(node, market.contracts.oracle);
    return {
      node,
      base,
      market,
      network: { rpc: node.rpcUrl, passphrase: node.networkPassphrase, opts: { allowHttp: true } },
    };
  } catch (e) {
    await node.close();
    throw e;
  }
}

/** Market options for the pool and oracle suites: no DEX venues, no allocation vault. */
export const POOL_AND_ORACLE_ONLY: MarketOptions = { dex: false, allocationVault: false };

/** Runs `fn` on a fresh {@link startMarket} chain and closes the node afterwards. */
export async function withMarket(
  opts: MarketOptions,
  fn: (fx: MarketFixture) => Promise<void>,
): Promise<void> {
  const fx = await startMarket(opts);
  try {
    await fn(fx);
  } finally {
    await fx.node.close();
  }
}

/** An operation from base64 (as the Blend SDK's builders return) or an object. */
function toOp(op: string | xdr.Operation): xdr.Operation {
  return typeof op === "string" ? xdr.Operation.fromXDR(op, "base64") : op;
}

/** Outcome of a simulation. */
export type SimOutcome = { ok: true; retval: xdr.ScVal } | { ok: false; error: string };

/** Simulates one operation (no source account needed, like the SDK's readers). */
export async function simulateOp(
  node: TestNode,
  op: string | xdr.Operation,
  source = Keypair.random().publicKey(),
): Promise<SimOutcome> {
  const tx = new TransactionBuilder(new Account(source, "0"), {
    fee: "1000",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(toOp(op)).setTimeout(0).build();
  const sim = await node.server.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) return { ok: false, error: sim.error };
  const retval = (sim as rpc.Api.SimulateTransactionSuccessResponse).result?.retval;
  return { ok: true, retval: retval ?? xdr.ScVal.scvVoid() };
}

/** Prepares (simulate + assemble), signs as `signer` and sends one operation; waits for it. */
export async function sendOp(
  node: TestNode,
  signer: Keypair,
  op: string | xdr.Operation,
): Promise<rpc.Api.GetTransactionResponse> {
  const account = await node.server.getAccount(signer.publicKey());
  const tx = new TransactionBuilder(account, {
    fee: "10000",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(toOp(op)).setTimeout(60).build();
  const prepared = await node.server.prepareTransaction(tx);
  prepared.sign(signer);
  const sent = await node.server.sendTransaction(prepared);
  if (sent.status !== "PENDING") throw new Error(`sendTransaction ${sent.status}`);
  return await node.server.pollTransaction(sent.hash, { attempts: 2000, sleepStrategy: () => 25 });
}

/** The contract error code in a simulation error string, if any. */
export function contractCode(error: string): number | undefined {
  const m = /Error\(Contract, #(\d+)\)/.exec(error);
  return m ? Number(m[1]) : undefined;
}

/** A raw JSON-RPC call to the node (for `localnet_*` control methods). */
export async function rpcCall<T = unknown>(
  node: TestNode,
  method: string,
  params: unknown,
): Promise<T> {
  const res = await fetch(node.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

/** `Contract(id).call(fn, ...args)` as an operation. */
export function callOp(id: string, fn: string, ...args: xdr.ScVal[]): xdr.Operation {
  return new Contract(id).call(fn, ...args);
}

/** A funded account holding USDC collateral in the pool (a healthy filler / keeper). */
export async function fillerWithCollateral(
  fx: MarketFixture,
  usdc: bigint,
): Promise<Keypair> {
  const kp = await fx.node.newAccount(1000n);
  seedTrustline(fx.node, kp.publicKey(), new Asset("USDC", fx.market.usdcIssuer), usdc);
  await fx.node.invoke(fx.market.contracts.lending_pool, "submit", {
    from: kp.publicKey(),
    spender: kp.publicKey(),
    to: kp.publicKey(),
    requests: [{ request_type: 2, address: fx.market.contracts.usdc, amount: usdc }],
  });
  await fx.node.closeLedgers(1);
  return kp;
}
