/**
 * Calling contracts over JSON-RPC for the SAC and auth suites: simulate (the return value or the
 * simulation's error text), send with the simulated auth or with given auth entries, and read a
 * transaction's contract events and failure errors.
 *
 * @module
 */
import assert from "node:assert/strict";
import {
  Address,
  type Keypair,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  SignerKey,
  StrKey,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import type { TestNode } from "../localnet.ts";
import { loadAccount } from "@vigil/localnet/accounts";
import { accountKey } from "@vigil/localnet/util";

// deno-lint-ignore no-explicit-any
type Any = any;

/** An Address ScVal of a G…, M… or C… strkey. */
export const addr = (s: string): xdr.ScVal => Address.fromString(s).toScVal();
/** An i128 ScVal. */
export const i128 = (n: bigint): xdr.ScVal => nativeToScVal(n, { type: "i128" });
/** A u32 ScVal. */
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);

/** One contract call from `source`, built and simulated. */
export interface Prepared {
  raw: ReturnType<TransactionBuilder["build"]>;
  sim: rpc.Api.SimulateTransactionResponse;
}

/** Builds `contract.fn(args)` from `source` and simulates it. */
export async function prepare(
  node: TestNode,
  source: string,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
): Promise<Prepared> {
  const acc = await node.server.getAccount(source);
  const raw = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.invokeContractFunction({ contract, function: fn, args }))
    .setTimeout(60)
    .build();
  // Legacy v1 address credentials (`useUpgradedAuth: false`): these suites build and tamper with
  // v1 entries by hand; the SDK's default v2 is tested in localnet/real_host/auth_v2_test.ts.
  return { raw, sim: await node.server.simulateTransaction(raw, undefined, undefined, false) };
}

/** The simulated return value as a native value; throws with the simulation error. */
export async function read(
  node: TestNode,
  source: string,
  contract: string,
  fn: string,
  args: xdr.ScVal[] = [],
): Promise<unknown> {
  const { sim } = await prepare(node, source, contract, fn, args);
  if (rpc.Api.isSimulationError(sim)) throw new Error(sim.error);
  return scValToNative((sim as rpc.Api.SimulateTransactionSuccessResponse).result!.retval);
}

/** The simulation error text of a call ("" when it simulates). */
export async function simError(
  node: TestNode,
  source: string,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
): Promise<string> {
  const { sim } = await prepare(node, source, contract, fn, args);
  return rpc.Api.isSimulationError(sim) ? sim.error : "";
}

/**
 * Sends a prepared call signed by `signer` with `auth` (default: the simulated entries) and the
 * simulated resources; the getTransaction answer (SUCCESS or FAILED).
 */
export async function send(
  node: TestNode,
  signer: Keypair,
  p: Prepared,
  auth?: xdr.SorobanAuthorizationEntry[],
): Promise<rpc.Api.GetTransactionResponse> {
  assert.ok(rpc.Api.isSimulationSuccess(p.sim), JSON.stringify(p.sim));
  const ok = p.sim as rpc.Api.SimulateTransactionSuccessResponse;
  const op = p.raw.operations[0] as { func: xdr.HostFunction };
  const acc = await node.server.getAccount(signer.publicKey());
  const data = ok.transactionData.build();
  const tx = new TransactionBuilder(acc, {
    fee: String(100 + Number(data.resourceFee)),
    networkPassphrase: node.networkPassphrase,
  })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth: auth ?? ok.result!.auth }))
    .setSorobanData(data)
    .setTimeout(60)
    .build();
  tx.sign(signer);
  const sent = await node.server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  return await node.confirm(sent.hash);
}

/** Simulates and sends `contract.fn(args)` from `source`, which must succeed. */
export async function call(
  node: TestNode,
  source: Keypair,
  contract: string,
  fn: string,
  args: xdr.ScVal[],
): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
  const p = await prepare(node, source.publicKey(), contract, fn, args);
  if (rpc.Api.isSimulationError(p.sim)) throw new Error(p.sim.error);
  const got = await send(node, source, p);
  assert.equal(got.status, "SUCCESS", failure(got));
  return got as rpc.Api.GetSuccessfulTransactionResponse;
}

/** A contract event as native values. */
export interface Ev {
  contract: string;
  topics: unknown[];
  data: unknown;
}

/** The contract events of a successful transaction, native. */
export function eventsOf(got: rpc.Api.GetSuccessfulTransactionResponse): Ev[] {
  return (got.events?.contractEventsXdr ?? []).flat().map((e: Any) => ({
    contract: StrKey.encodeContract(e.contractId.value ?? e.contractId),
    topics: e.body.v0.topics.map((t: xdr.ScVal) => scValToNative(t)),
    data: scValToNative(e.body.v0.data),
  }));
}

/**
 * A failed transaction's host errors and their messages, from its diagnostic events
 * (`error` topics): `Error(Auth, InvalidAction): "failed account authentication …"` lines.
 */
export function failure(got: rpc.Api.GetTransactionResponse): string {
  if (got.status !== "FAILED") return `status ${got.status}`;
  const diag = (got as rpc.Api.GetFailedTransactionResponse).diagnosticEventsXdr ?? [];
  return diag
    .map((d: Any) => d.event.body.v0)
    .filter((b: Any) => b.topics[0]?.type === "scvSymbol" && String(b.topics[0].sym) === "error")
    .map((b: Any) => {
      let data: unknown;
      try {
        data = scValToNative(b.data);
      } catch {
        data = b.data.type;
      }
      const text = JSON.stringify(data, (_, v) => typeof v === "bigint" ? String(v) : v);
      return `${errorName(b.topics[1])}: ${text}`;
    })
    .join("\n");
}

const camel = (s: string) => s.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** `Error(Auth, InvalidAction)` / `Error(Contract, #10)`, as the host prints an ScError Val. */
function errorName(v: xdr.ScVal): string {
  const j = (v.toJson() as Any).error as Record<string, string | number>;
  const [type, code] = Object.entries(j)[0];
  return `Error(${camel(type)}, ${typeof code === "number" ? `#${code}` : camel(code)})`;
}

/** Sends one classic operation signed by `kp`, which must succeed. */
export async function classic(node: TestNode, kp: Keypair, op: xdr.Operation): Promise<void> {
  const acc = await node.server.getAccount(kp.publicKey());
  const tx = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(op)
    .setTimeout(60)
    .build();
  tx.sign(kp);
  const sent = await node.server.sendTransaction(tx);
  assert.equal(sent.status, "PENDING", JSON.stringify(sent));
  assert.equal((await node.confirm(sent.hash)).status, "SUCCESS");
}

/**
 * Sets an account's flags, thresholds or signers directly in the node's state (the node has no
 * SetOptions): for issuer flags (AUTH_REVOCABLE, AUTH_CLAWBACK_ENABLED) and multisig accounts.
 */
export function patchAccount(
  node: TestNode,
  g: string,
  patch: { flags?: number; thresholds?: Uint8Array; signers?: { key: string; weight: number }[] },
): void {
  const acc = loadAccount(node.chain.store, g);
  assert.ok(acc, `no account ${g}`);
  const signers = patch.signers?.map((s) =>
    new xdr.Signer({ key: SignerKey.decodeAddress(s.key), weight: s.weight })
  );
  const next = new xdr.AccountEntry({
    accountId: acc.accountId,
    balance: acc.balance,
    seqNum: acc.seqNum,
    numSubEntries: acc.numSubEntries + (signers?.length ?? 0) - acc.signers.length,
    inflationDest: acc.inflationDest,
    flags: patch.flags ?? acc.flags,
    homeDomain: acc.homeDomain,
    thresholds: (patch.thresholds ?? acc.thresholds) as Any,
    signers: signers ?? acc.signers,
    ext: acc.ext,
  });
  node.chain.applyDirect(
    new Map([[
      accountKey(g),
      new xdr.LedgerEntry({
        lastModifiedLedgerSeq: 0,
        data: xdr.LedgerEntryData.account(next),
        ext: xdr.LedgerEntryExt.v0(),
      }),
    ]]),
  );
}

/**
 * Re-simulates a prepared call with signed `auth` entries (enforcing mode), as clients do once
 * the entries are signed: the footprint and instructions then include the signature checks
 * (several signers, a contract account's `__check_auth`), which recording cannot know.
 */
export async function prepareSigned(
  node: TestNode,
  source: string,
  p: Prepared,
  auth: xdr.SorobanAuthorizationEntry[],
): Promise<Prepared> {
  const acc = await node.server.getAccount(source);
  const op = p.raw.operations[0] as { func: xdr.HostFunction };
  const raw = new TransactionBuilder(acc, { fee: "100", networkPassphrase: node.networkPassphrase })
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth }))
    .setTimeout(60)
    .build();
  // Legacy v1 address credentials (`useUpgradedAuth: false`): these suites build and tamper with
  // v1 entries by hand; the SDK's default v2 is tested in localnet/real_host/auth_v2_test.ts.
  return { raw, sim: await node.server.simulateTransaction(raw, undefined, undefined, false) };
}
