/**
 * Deploying Wasm over JSON-RPC the way a Stellar developer does: `Operation.uploadContractWasm`
 * and `Operation.createCustomContract` (with constructor arguments), simulated with
 * `prepareTransaction`, signed and sent.
 *
 * @module
 */
import {
  Address,
  hash,
  type Keypair,
  Operation,
  rpc,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";
import type { TestNode } from "../helpers/localnet.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Simulates, signs, sends and waits for one Soroban operation; returns the final response. */
export async function submit(
  node: TestNode,
  kp: Keypair,
  op: xdr.Operation,
): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
  const account = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(account, {
    fee: "100",
    networkPassphrase: node.networkPassphrase,
  }).addOperation(op).setTimeout(60).build();
  const prepared = await node.server.prepareTransaction(tx);
  prepared.sign(kp);
  const sent = await node.server.sendTransaction(prepared);
  if (sent.status !== "PENDING") {
    throw new Error(`send failed: ${sent.status} ${JSON.stringify(sent.errorResult ?? "")}`);
  }
  const got = await node.server.pollTransaction(sent.hash);
  if (got.status !== "SUCCESS") throw new Error(`transaction ${got.status}`);
  return got as rpc.Api.GetSuccessfulTransactionResponse;
}

/** Uploads a Wasm; returns its hash. */
export async function upload(node: TestNode, kp: Keypair, wasm: Uint8Array): Promise<Uint8Array> {
  await submit(node, kp, Operation.uploadContractWasm({ wasm }));
  return hash(wasm as Any) as Uint8Array;
}

/** Creates a contract from an uploaded Wasm with constructor arguments; returns its C… id. */
export async function create(
  node: TestNode,
  kp: Keypair,
  wasmHash: Uint8Array,
  constructorArgs: xdr.ScVal[] = [],
  salt: Uint8Array = crypto.getRandomValues(new Uint8Array(32)),
): Promise<string> {
  const res = await submit(
    node,
    kp,
    Operation.createCustomContract({
      address: new Address(kp.publicKey()),
      wasmHash: wasmHash as Any,
      salt: salt as Any,
      constructorArgs,
    }),
  );
  return Address.fromScVal(res.returnValue!).toString();
}

/** Uploads and creates in one go. */
export async function deployWasm(
  node: TestNode,
  kp: Keypair,
  wasm: Uint8Array,
  constructorArgs: xdr.ScVal[] = [],
): Promise<string> {
  return create(node, kp, await upload(node, kp, wasm), constructorArgs);
}
