/**
 * Soroban access shared by the server and the browser, through `@stellar/stellar-sdk` only:
 * contract specs (fetched once per contract with `contract.Client.from`), read-only
 * simulation of view functions, and the write path (build → simulate → assemble → sign by a
 * wallet → send → poll) with progress reporting. Sending and polling is `send.ts`'s
 * {@link sendAndConfirm}, the keeper's; specs come from `spec_cache.ts`.
 *
 * @module
 */
import {
  Account,
  BASE_FEE,
  Contract,
  contract,
  Operation,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { ContractCallError, parseHostError } from "./errors.ts";
import { type AutoRestore, autoRestoreOf } from "./auto_restore.ts";
import { sendAndConfirm, signTx, type WalletSigner } from "./send.ts";
import { clearSpecs, specOf } from "./spec_cache.ts";

export { ContractCallError };
export type { AutoRestore };

/** An address used as the source of read-only simulations; it need not exist. */
const READ_SOURCE = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF";

/** Where the frontend reaches the network. */
export interface NetworkInfo {
  rpcUrl: string;
  passphrase: string;
}

const servers = new Map<string, rpc.Server>();

/** One `rpc.Server` per RPC URL (allowHttp only for loopback/local URLs). */
export function rpcServer(rpcUrl: string): rpc.Server {
  let s = servers.get(rpcUrl);
  if (!s) {
    s = new rpc.Server(rpcUrl, { allowHttp: rpcUrl.startsWith("http:") });
    servers.set(rpcUrl, s);
  }
  return s;
}

/**
 * Installs the `rpc.Server` every later {@link rpcServer} call returns for `rpcUrl` (the web
 * server installs one whose requests time out).
 */
export function setRpcServer(rpcUrl: string, server: rpc.Server): void {
  servers.set(rpcUrl, server);
}

/** The spec of a deployed contract (cached per RPC server; a failed fetch is retried next time). */
export function contractSpec(net: NetworkInfo, contractId: string): Promise<contract.Spec> {
  return specOf(rpcServer(net.rpcUrl), contractId);
}

/** Forgets cached specs (tests redeploy contracts at the same RPC URL). */
export function clearSpecCache(): void {
  clearSpecs();
}

/** The function's arguments in spec order, from an object or a positional array. */
function argsToScVals(spec: contract.Spec, fn: string, args: unknown[] | Record<string, unknown>) {
  if (!Array.isArray(args)) return spec.funcArgsToScVals(fn, args);
  const inputs = spec.getFunc(fn).inputs;
  if (inputs.length !== args.length) {
    throw new Error(`${fn} takes ${inputs.length} arguments, got ${args.length}`);
  }
  const named: Record<string, unknown> = {};
  inputs.forEach((inp, i) => named[String(inp.name)] = args[i]);
  return spec.funcArgsToScVals(fn, named);
}

/** How long a write stays valid after the latest ledger's close time (seconds). */
const TX_VALIDITY_S = 300;
/**
 * Ledgers after the simulated one in which a page's transaction may still be included (its
 * `maxLedger` bound): once they have passed without it, it can never land and the page says so.
 */
const TX_VALIDITY_LEDGERS = 60;

const CONTRACT_ERR = /Error\(Contract, #(\d+)\)/;

/** Names an error code through the contract's spec error enum. */
function errorCase(spec: contract.Spec | null, code: number): { name: string; doc: string } | null {
  if (!spec) return null;
  for (const c of spec.errorCases()) {
    if (Number(c.value) === code) return { name: String(c.name), doc: String(c.doc ?? "") };
  }
  return null;
}

/** A diagnostic event in stellar-xdr JSON form (from an object or base64 XDR). */
function eventJson(ev: unknown): Record<string, unknown> | null {
  try {
    const de = typeof ev === "string" ? xdr.DiagnosticEvent.fromXDR(ev, "base64") : ev;
    const j = (de as { toJson?: () => unknown }).toJson?.();
    return j && typeof j === "object" ? j as Record<string, unknown> : null;
  } catch {
    return null;
  }
}

/** The contract error codes reported by "error" diagnostic events, with their contract. */
function diagnosticErrors(
  events: unknown[] | undefined,
): { code: number; contract: string | null }[] {
  const out: { code: number; contract: string | null }[] = [];
  for (const ev of events ?? []) {
    const j = eventJson(ev) as
      | { event?: { contract_id?: string | null; body?: { v0?: { topics?: unknown[] } } } }
      | null;
    const topics = j?.event?.body?.v0?.topics ?? [];
    for (const t of topics) {
      const code = (t as { error?: { contract?: unknown } })?.error?.contract;
      if (typeof code === "number") out.push({ code, contract: j?.event?.contract_id ?? null });
    }
  }
  return out;
}

/**
 * Finds the contract that raised a contract error: the first (innermost) "error" diagnostic
 * event carrying that code names the failing contract.
 */
function errorOrigin(events: unknown[] | undefined, code: number): string | null {
  return diagnosticErrors(events).find((e) => e.code === code && e.contract)?.contract ?? null;
}

/** Builds a {@link ContractCallError} from a failed simulation or transaction. */
export function callError(
  contractId: string,
  fn: string,
  detail: string,
  spec: contract.Spec | null,
  events?: unknown[],
  txHash?: string,
): ContractCallError {
  const m = CONTRACT_ERR.exec(detail);
  const code = m ? Number(m[1]) : null;
  const origin = code === null ? null : errorOrigin(events, code);
  const ownError = origin === null || origin === contractId;
  const c = code !== null && ownError ? errorCase(spec, code) : null;
  const msg = c
    ? `${fn} failed: ${c.name}${c.doc ? ` (${c.doc})` : ""}`
    : code !== null
    ? `${fn} failed: Error(Contract, #${code})`
    : `${fn} failed: ${detail.split("\n")[0].slice(0, 300)}`;
  const hostError = code !== null ? { type: "Contract", code } : parseHostError(detail);
  return new ContractCallError(
    contractId,
    fn,
    hostError,
    detail,
    txHash ? "transaction" : "simulation",
    txHash,
    { message: msg, caseName: c?.name ?? null, origin },
  );
}

/**
 * Builds an unsigned invocation transaction. `maxTime` (Unix seconds) bounds its validity;
 * 0 = no upper bound (read-only simulation).
 */
function buildCall(
  net: NetworkInfo,
  source: Account,
  contractId: string,
  fn: string,
  args: unknown[] | Record<string, unknown>,
  spec: contract.Spec,
  maxTime: number,
) {
  return new TransactionBuilder(source, {
    fee: BASE_FEE,
    networkPassphrase: net.passphrase,
    timebounds: { minTime: 0, maxTime },
  })
    .addOperation(new Contract(contractId).call(fn, ...argsToScVals(spec, fn, args)))
    .build();
}

/**
 * Calls a view function by read-only simulation (no fees, no signature) and returns its
 * native result (a `Result`'s Ok value unwrapped). Throws {@link ContractCallError}.
 */
export async function simulateView<T = unknown>(
  net: NetworkInfo,
  contractId: string,
  fn: string,
  args: unknown[] | Record<string, unknown> = [],
): Promise<T> {
  const spec = await contractSpec(net, contractId);
  const tx = buildCall(net, new Account(READ_SOURCE, "0"), contractId, fn, args, spec, 0);
  const sim = await rpcServer(net.rpcUrl).simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) {
    throw callError(contractId, fn, sim.error, spec, sim.events as unknown[]);
  }
  const retval = (sim as rpc.Api.SimulateTransactionSuccessResponse).result?.retval;
  if (!retval) throw callError(contractId, fn, "simulation returned no result", spec);
  const native = spec.funcResToNative(fn, retval) as unknown;
  if (native instanceof contract.Ok) return native.unwrap() as T;
  if (native instanceof contract.Err) {
    throw callError(contractId, fn, String(native.unwrapErr()?.message ?? "error"), spec);
  }
  return native as T;
}

/**
 * The stages of a write, in order. "restoring" appears only on an RPC older than protocol 23
 * that answers archived state with a `restorePreamble`: the wallet first signs a
 * RestoreFootprint transaction. From protocol 23 on (CAP-66) the call restores archived state
 * itself, in the same transaction: no extra stage, the "signing" stage reports it instead.
 */
export type WriteStage = "building" | "restoring" | "signing" | "submitted" | "confirmed";

/** Extra facts a stage reports (fees in stroops). */
export interface StageInfo {
  hash?: string;
  /** "restoring": the separate RestoreFootprint transaction's resource fee. */
  restoreFee?: string;
  /** "signing": archived entries this transaction restores itself, and what that costs. */
  autoRestore?: AutoRestore;
}

/** A wallet able to sign a transaction envelope (base64 XDR). */
export type TxSigner = WalletSigner;

/** What a confirmed write returns. */
export interface WriteResult<T = unknown> {
  hash: string;
  ledger: number;
  /** The function's native return value. */
  value: T;
}

interface WriteOpts {
  onStage?: (stage: WriteStage, info?: StageInfo) => void;
  timeoutMs?: number;
  pollMs?: number;
}

/**
 * The write path, entirely client-side: build the invocation, simulate it (a contract error
 * stops here, before the wallet is asked), assemble (footprint, resource fee, auth), have the
 * wallet sign, send, and poll getTransaction until it is final (bounded by `timeoutMs`).
 * `onStage` reports progress: building → signing → submitted (with the hash) → confirmed.
 * Archived state the call needs: on protocol 23+ the call restores it itself (one transaction,
 * one signature; "signing" reports the entries and the fee, see auto_restore.ts); an older RPC
 * answers with a `restorePreamble` instead, and then the wallet first signs that
 * RestoreFootprint transaction ("restoring", with its fee), and the call is built again.
 */
export async function writeCall<T = unknown>(
  net: NetworkInfo,
  contractId: string,
  fn: string,
  args: unknown[] | Record<string, unknown>,
  signer: TxSigner,
  opts: WriteOpts = {},
  restored = false,
): Promise<WriteResult<T>> {
  const server = rpcServer(net.rpcUrl);
  opts.onStage?.("building");
  const spec = await contractSpec(net, contractId);
  const [account, latest] = await Promise.all([
    server.getAccount(signer.address),
    server.getLatestLedger(),
  ]);
  // Validity is measured on the ledger's clock, not the browser's (they can differ).
  const ledgerNow = Number((latest as { closeTime?: unknown }).closeTime);
  const base = Number.isFinite(ledgerNow) && ledgerNow > 0 ? ledgerNow : Date.now() / 1000;
  const raw = buildCall(net, account, contractId, fn, args, spec, Math.floor(base) + TX_VALIDITY_S);
  const sim = await server.simulateTransaction(raw);
  if (rpc.Api.isSimulationError(sim)) {
    throw callError(contractId, fn, sim.error, spec, sim.events as unknown[]);
  }
  if (rpc.Api.isSimulationRestore(sim)) {
    if (restored) throw new Error(`${fn}: contract state is still archived after a restore`);
    const pre = sim.restorePreamble;
    opts.onStage?.("restoring", { restoreFee: pre.minResourceFee });
    // A fresh account: building the call already used this sequence number locally.
    const restoreTx = new TransactionBuilder(await server.getAccount(signer.address), {
      fee: BASE_FEE,
      networkPassphrase: net.passphrase,
      timebounds: { minTime: 0, maxTime: Math.floor(base) + TX_VALIDITY_S },
      ledgerbounds: { minLedger: 0, maxLedger: sim.latestLedger + 1 + TX_VALIDITY_LEDGERS },
    })
      .setSorobanData(pre.transactionData.build())
      .addOperation(Operation.restoreFootprint({}))
      .build();
    const got = await sendAndConfirm(
      { server },
      await signTx(signer, restoreTx, net.passphrase),
      pollOpts(opts),
    );
    if (got.failed) {
      throw new Error(`${fn}: restoring the archived state failed (transaction ${got.hash})`);
    }
    return writeCall<T>(net, contractId, fn, args, signer, opts, true);
  }
  const maxLedger = sim.latestLedger + 1 + TX_VALIDITY_LEDGERS;
  // The assembled transaction keeps the data's v1 extension (the entries it restores).
  const assembled = rpc.assembleTransaction(raw, sim).setLedgerbounds(0, maxLedger).build();
  const autoRestore = await autoRestoreOf(server, net.passphrase, signer.address, sim);
  opts.onStage?.("signing", autoRestore ? { autoRestore } : undefined);
  const got = await sendAndConfirm(
    { server },
    await signTx(signer, assembled, net.passphrase),
    pollOpts(opts),
  );
  if (!got.failed) {
    const ret = got.returnValue;
    let value: unknown = null;
    if (ret) {
      const native = spec.funcResToNative(fn, ret) as unknown;
      value = native instanceof contract.Ok ? native.unwrap() : native;
    }
    opts.onStage?.("confirmed", { hash: got.hash });
    return { hash: got.hash, ledger: got.ledger, value: value as T };
  }
  const events = got.failed.diagnosticEvents as unknown[] | undefined;
  throw callError(contractId, fn, failedDetail(got.failed, events), spec, events, got.hash);
}

/**
 * The page's polling on the shared send path: "submitted" once the node has the envelope, a
 * poll a second, and `timeoutMs` as the wall-clock net (the transaction's bounds decide first).
 */
function pollOpts(opts: WriteOpts) {
  return {
    pollIntervalMs: opts.pollMs ?? 1000,
    pollTimeoutMs: opts.timeoutMs ?? 60_000,
    onQueued: (hash: string) => opts.onStage?.("submitted", { hash }),
  };
}

/** Best-effort text for a FAILED transaction, including any contract error code. */
function failedDetail(failed: { opCode?: string }, events: unknown[] | undefined): string {
  const first = diagnosticErrors(events)[0];
  if (first) return `Error(Contract, #${first.code})`;
  return failed.opCode
    ? `transaction failed: ${failed.opCode.slice(0, 300)}`
    : "transaction failed";
}
