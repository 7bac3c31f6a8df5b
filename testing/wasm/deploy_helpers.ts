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
  type rpc,
  StrKey,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { Buffer } from "node:buffer";
import type { TestNode } from "../localnet.ts";

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
  // node.confirm polls every 25 ms; the SDK's pollTransaction waits a second between tries.
  const got = await node.confirm(sent.hash);
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

/** The C… id of a contract deployed by `deployer` with `salt`, derived as the network does. */
export function contractIdFor(
  networkPassphrase: string,
  deployer: string,
  salt: Uint8Array,
): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: hash(Buffer.from(networkPassphrase)),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: Address.fromString(deployer).toScAddress(),
          salt: Buffer.from(salt),
        }),
      ),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXDR()));
}

/** Base64 `LedgerKey` of a contract data entry (durability 0 temporary, 1 persistent). */
export function contractDataKey(contract: string, key: xdr.ScVal, durability: 0 | 1): string {
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: Address.fromString(contract).toScAddress(),
      key,
      durability: durability === 1
        ? xdr.ContractDataDurability.persistent
        : xdr.ContractDataDurability.temporary,
    }),
  ).toXDR("base64");
}

/** Base64 `LedgerKey` of a contract's instance entry. */
export function instanceKey(contract: string): string {
  return contractDataKey(contract, xdr.ScVal.scvLedgerKeyContractInstance(), 1);
}

/** Base64 `LedgerKey` of uploaded Wasm. */
export function codeKey(wasmHash: Uint8Array): string {
  return xdr.LedgerKey.contractCode(
    new xdr.LedgerKeyContractCode({ hash: Buffer.from(wasmHash) }),
  ).toXDR("base64");
}
