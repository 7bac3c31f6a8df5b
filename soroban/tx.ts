/**
 * Contract calls: read-only simulation, and the write path build → simulate → assemble → sign
 * → send → poll. Failures are typed ({@link ContractCallError} with the contract error number,
 * {@link TxRejectedError} when the envelope is refused or can no longer land —
 * {@link TxExpiredError} —, {@link TxPendingError} when the outcome is unknown), so callers
 * branch on facts, not on message substrings.
 *
 * The keeper signs only what it meant (issue 20): the simulation's recorded authorization entries
 * are checked against the shape the caller states (`invokeContract`'s required `auth`,
 * `auth_guard.ts`) before the transaction is assembled and signed; anything unplanned is
 * {@link UnexpectedAuthError}, reported to `onAuthRefused`, and nothing is sent.
 *
 * Coping with a real network (stellar-core's queue behind stellar-rpc):
 * - every transaction carries a ledger bound (`maxLedger` = latest + `validForLedgers`), so a
 *   NOT_FOUND transaction is polled until it is included or the bound has passed — then it can
 *   never land, and the caller is told so ({@link TxExpiredError}); sending and polling is
 *   `send.ts`'s {@link sendAndConfirm}, shared with the web and deploy;
 * - one transaction in flight per source account ({@link withSourceLock}): stellar-core
 *   queues one per account, and sequence numbers must not race;
 * - the inclusion fee comes from getFeeStats (p90 of recently charged Soroban inclusion fees,
 *   at least the base fee) within a ceiling (`maxInclusionFee`, config MAX_INCLUSION_FEE);
 * - archived entries a call needs are restored by the call itself from protocol 23 on (CAP-66:
 *   the simulation's data lists them, the resource fee covers them); only an older RPC's
 *   restore preamble makes us send a RestoreFootprint transaction first and build the call
 *   again.
 *
 * No retries of a transaction with a new sequence number here: the caller decides (the spec
 * forbids automatic swap retries, and a retried draw could double-draw).
 *
 * @module
 */
import {
  Account,
  authorizeEntry,
  Contract,
  type Keypair,
  Operation,
  rpc,
  TimeoutInfinite,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { type AuthShape, checkAuthEntries, rootCall } from "./auth_guard.ts";
import {
  ContractCallError,
  type DryRunCall,
  DryRunError,
  parseHostError,
  UnexpectedAuthError,
} from "./errors.ts";
import { sendAndConfirm } from "./send.ts";
import { ledgerNow } from "./ledger.ts";
import type { ChainRpc } from "./rpc.ts";
import { archivedEntryKeys } from "./auto_restore.ts";

/** Source of read-only simulations: it need not exist (stellar-rpc does not check it). */
export const NULL_ACCOUNT = "GAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWHF";

/** The result of a successful simulation. */
export interface SimulationOk {
  retval: xdr.ScVal;
  latestLedger: number;
  minResourceFee: string;
}

/**
 * Simulates `contractId.fn(args)` without sending anything (a view call). Throws
 * {@link ContractCallError} (stage "simulation") when the call fails.
 */
export async function simulateRead(
  chain: ChainRpc,
  contractId: string,
  fn: string,
  args: xdr.ScVal[] = [],
  source: string = NULL_ACCOUNT,
): Promise<SimulationOk> {
  const tx = new TransactionBuilder(new Account(source, "0"), {
    fee: "100",
    networkPassphrase: chain.networkPassphrase,
  })
    .addOperation(new Contract(contractId).call(fn, ...args))
    .setTimeout(TimeoutInfinite)
    .build();
  const sim = await chain.server.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) {
    throw new ContractCallError(contractId, fn, parseHostError(sim.error), sim.error, "simulation");
  }
  const ok = sim as rpc.Api.SimulateTransactionSuccessResponse;
  return {
    retval: ok.result?.retval ?? xdr.ScVal.scvVoid(),
    latestLedger: ok.latestLedger,
    minResourceFee: ok.minResourceFee,
  };
}

/** Options of {@link invokeContract}. */
export interface InvokeOptions {
  /**
   * Fixed inclusion fee in stroops on top of the resource fee. Default: from getFeeStats
   * ({@link inclusionFeeFor}) within {@link InvokeOptions.maxInclusionFee}.
   */
  inclusionFee?: number;
  /** Ceiling of the fee-stats inclusion fee, stroops (default {@link DEFAULT_MAX_INCLUSION_FEE}). */
  maxInclusionFee?: number;
  /** Seconds the transaction stays valid, counted on the ledger clock (default 60). */
  validForSec?: number;
  /**
   * Ledgers the transaction may still be included in after the latest one (its `maxLedger`
   * bound; default {@link DEFAULT_VALID_FOR_LEDGERS}). Past it, it can never land.
   */
  validForLedgers?: number;
  /** Poll interval of getTransaction in ms (default 250). */
  pollIntervalMs?: number;
  /**
   * Wall-clock safety net: give up polling after this many ms and throw
   * {@link TxPendingError} (default 60 000; the ledger bound normally decides first).
   */
  pollTimeoutMs?: number;
  /**
   * The source account with its current sequence number, when the caller already read it (saves
   * a getLedgerEntries on a latency-critical path). Default: read it now.
   */
  account?: Account;
  /** Called after a successful simulation, right before the transaction is sent. */
  beforeSend?: (sim: SimulationOk) => void | Promise<void>;
  /**
   * Told of every refused authorization ({@link UnexpectedAuthError}) before it is thrown: the
   * keeper logs it with its reason (`keeper/startup.ts`).
   */
  onAuthRefused?: (err: UnexpectedAuthError) => void;
  /**
   * A floor under the fee-stats bid, stroops (still capped by `maxInclusionFee`): a caller that
   * stands to gain more from being included bids more. Ignored when `inclusionFee` is set.
   */
  minInclusionFee?: number;
  /**
   * Raises the inclusion fee from the simulation (e.g. with the profit a flash would book): the
   * transaction is rebuilt with `max(bid, returned)` capped by `maxInclusionFee` before signing.
   */
  feeFromSimulation?: (sim: SimulationOk) => number | undefined;
  /**
   * DRY_RUN: build, simulate and check everything, then call this instead of signing and
   * sending, and throw {@link DryRunError}. Nothing is ever signed or sent.
   */
  dryRun?: (action: DryRunCall) => void;
}

/** Options of {@link invokeContract}: the pipeline's, plus the authorization it may sign. */
export interface CallOptions extends InvokeOptions {
  /**
   * REQUIRED: what the call may have the keeper authorize beneath it (`auth_guard.ts`;
   * `ROOT_ONLY` when nothing nested needs the keeper's authorization). Anything the simulation
   * records outside it is refused with {@link UnexpectedAuthError}, and nothing is signed.
   */
  auth: AuthShape;
  /**
   * A channel account (issue 26): the transaction's source — it holds the sequence number, pays
   * the fees and signs the envelope — while `keypair` signs only the Soroban authorization
   * entries recorded for its address (address credentials, `authorizeEntry`, expiring with the
   * transaction's ledger bound). The recorded entries must all be for `keypair`'s address and fit
   * `auth` exactly as a source-account call's would (`auth_guard.ts`); `account` is then the
   * channel's. One signature is assumed (what recording-mode simulation budgets for): a keeper
   * account that needs several signers must not use channels.
   */
  source?: Keypair;
}

/** Default ceiling of the inclusion fee, stroops (0.001 XLM). */
export const DEFAULT_MAX_INCLUSION_FEE = 10_000;
/** Default ledger bound: included within this many ledgers after the latest, or never. */
export const DEFAULT_VALID_FOR_LEDGERS = 20;
/**
 * Through a channel account (`source`): the most ledgers after the latest that the keeper's
 * signed authorization entries — and so the transaction — stay valid.
 */
export const SIGNED_AUTH_LEDGERS = 5;
/** The network's minimum inclusion fee per operation. */
const BASE_FEE = 100;
const FEE_STATS_TTL_MS = 5_000;
const feeStatsCache = new WeakMap<ChainRpc, { at: number; p90: number }>();

/**
 * The inclusion fee to bid: `opts.inclusionFee` when set, else the p90 of the Soroban
 * inclusion fees charged in stellar-rpc's fee-stats window (cached for 5 s), at least the base
 * fee and at most `opts.maxInclusionFee`. An unreachable getFeeStats bids the base fee.
 */
export async function inclusionFeeFor(
  chain: ChainRpc,
  opts: Pick<InvokeOptions, "inclusionFee" | "maxInclusionFee" | "minInclusionFee"> = {},
): Promise<number> {
  if (opts.inclusionFee !== undefined) return opts.inclusionFee;
  const ceiling = Math.max(BASE_FEE, opts.maxInclusionFee ?? DEFAULT_MAX_INCLUSION_FEE);
  let cached = feeStatsCache.get(chain);
  if (!cached || performance.now() - cached.at > FEE_STATS_TTL_MS) {
    try {
      const stats = await chain.server.getFeeStats();
      const p90 = Number(stats.sorobanInclusionFee.p90);
      cached = { at: performance.now(), p90: Number.isFinite(p90) ? p90 : 0 };
      feeStatsCache.set(chain, cached);
    } catch {
      cached = { at: performance.now(), p90: 0 };
    }
  }
  return Math.min(ceiling, Math.max(BASE_FEE, Math.ceil(cached.p90), opts.minInclusionFee ?? 0));
}

/** `fee` raised to `wanted` (never lowered), capped by the ceiling of `opts`. */
export function raisedFee(
  fee: number,
  wanted: number | undefined,
  opts: Pick<InvokeOptions, "maxInclusionFee">,
): number {
  if (wanted === undefined || !Number.isFinite(wanted)) return fee;
  const ceiling = Math.max(BASE_FEE, opts.maxInclusionFee ?? DEFAULT_MAX_INCLUSION_FEE);
  return Math.max(fee, Math.min(ceiling, Math.floor(wanted)));
}

const sourceLocks = new WeakMap<ChainRpc, Map<string, Promise<unknown>>>();

/**
 * Runs `fn` while holding `account`'s submission lock on `chain`: never two of the keeper's
 * own transactions in flight from one account (stellar-core queues one per source, and the
 * second would reuse a sequence number). Not re-entrant.
 */
export function withSourceLock<T>(
  chain: ChainRpc,
  account: string,
  fn: () => Promise<T>,
): Promise<T> {
  let locks = sourceLocks.get(chain);
  if (!locks) sourceLocks.set(chain, locks = new Map());
  const prev = locks.get(account) ?? Promise.resolve();
  const run = prev.then(fn, fn);
  const tail = run.catch(() => {});
  locks.set(account, tail);
  tail.then(() => {
    if (locks.get(account) === tail) locks.delete(account);
  });
  return run;
}

/** A transaction that was included and succeeded. */
export interface InvokeResult {
  hash: string;
  /** Ledger the transaction was included in. */
  ledger: number;
  returnValue?: xdr.ScVal;
  /** Wall-clock ms from send to confirmation. */
  confirmMs: number;
  /**
   * Archived entries the invocation restored itself (protocol 23+, CAP-66: listed in its
   * transaction data's v1 extension, paid by its resource fee); 0 when none.
   */
  restoredEntries?: number;
  /** Set when an older RPC's `restorePreamble` made us send a RestoreFootprint first. */
  restoreTxHash?: string;
}

/**
 * Calls `contractId.fn(args)` in a transaction signed by `keypair` (the transaction source;
 * Soroban auth for the keypair's address is satisfied by source-account credentials). The
 * simulation's recorded authorizations must fit `opts.auth` (the root call exactly, then only
 * the planned sub-invocations), otherwise {@link UnexpectedAuthError} and nothing is signed.
 */
export function invokeContract(
  chain: ChainRpc,
  keypair: Keypair,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
  opts: CallOptions,
): Promise<InvokeResult> {
  return withSourceLock(
    chain,
    (opts.source ?? keypair).publicKey(),
    () => invokeLocked(chain, keypair, contractId, fn, args, opts),
  );
}

async function invokeLocked(
  chain: ChainRpc,
  keypair: Keypair,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
  opts: CallOptions,
): Promise<InvokeResult> {
  const server = chain.server;
  // The transaction's source: the keeper itself, or a channel account (then the keeper signs the
  // authorization entries only).
  const source = opts.source ?? keypair;
  const channel = opts.source !== undefined && opts.source.publicKey() !== keypair.publicKey();
  const [account, fee] = await Promise.all([
    opts.account ?? server.getAccount(source.publicKey()),
    inclusionFeeFor(chain, opts),
  ]);
  const maxTime = ledgerNow(chain) + (opts.validForSec ?? 60);
  // TransactionBuilder bumps the Account's sequence number on build: each build starts from a
  // copy holding the sequence as read, so a rebuild (a higher bid) reuses the same number.
  const seq = account.sequenceNumber();
  const build = (bid: number, auth?: xdr.SorobanAuthorizationEntry[]) =>
    new TransactionBuilder(new Account(account.accountId(), seq), {
      fee: String(bid),
      networkPassphrase: chain.networkPassphrase,
      timebounds: { minTime: 0, maxTime },
    })
      .addOperation(callOp(contractId, fn, args, auth))
      .build();
  let tx = build(fee);
  const sim = await server.simulateTransaction(tx);
  if (rpc.Api.isSimulationError(sim)) {
    throw new ContractCallError(contractId, fn, parseHostError(sim.error), sim.error, "simulation");
  }
  // Archived entries the call needs. From protocol 23 (CAP-66) the invocation restores them
  // itself: simulation lists them in the data's v1 extension, which assembling keeps, and the
  // resource fee covers them; nothing else to send. An RPC older than that answers with a
  // `restorePreamble` instead: restore first (one RestoreFootprint transaction), then build
  // the call again on a fresh sequence number.
  if (rpc.Api.isSimulationRestore(sim)) {
    const restoreTxHash = await restoreFromPreamble(chain, source, sim.restorePreamble, opts);
    const r = await invokeLocked(chain, keypair, contractId, fn, args, {
      ...opts,
      account: undefined,
    });
    return { ...r, restoreTxHash };
  }
  const okSim = sim as rpc.Api.SimulateTransactionSuccessResponse;
  // Every recorded entry with source-account credentials would be authorized by our signature:
  // check them against what we planned before anything else (a profit check included).
  const auth = okSim.result?.auth ?? [];
  guardAuth(auth, contractId, fn, args, opts, channel ? keypair.publicKey() : undefined);
  const simOk: SimulationOk = {
    retval: okSim.result?.retval ?? xdr.ScVal.scvVoid(),
    latestLedger: okSim.latestLedger,
    minResourceFee: okSim.minResourceFee,
  };
  await opts.beforeSend?.(simOk);
  // The simulation does not depend on the fee: the same operation rebuilt with a higher bid (same
  // account sequence) assembles with the same footprint and authorization.
  const bid = opts.inclusionFee ?? raisedFee(fee, opts.feeFromSimulation?.(simOk), opts);
  if (bid !== fee) tx = build(bid);
  // As building with it would have: the caller's Account now holds the sequence number used.
  account.incrementSequenceNumber();
  if (opts.dryRun) {
    const action: DryRunCall = {
      call: `${fn} on ${contractId}`,
      contract: contractId,
      fn,
      inclusionFee: bid,
      resourceFee: okSim.minResourceFee,
    };
    opts.dryRun(action);
    throw new DryRunError(action);
  }
  // Valid for a fixed number of ledgers after the one simulated against: past that bound the
  // transaction can never land, which is how polling knows when to stop.
  // Through a channel the bound is at most SIGNED_AUTH_LEDGERS: the keeper's signed entries
  // could be lifted from the transaction and sent by anyone until they expire (only as exactly
  // this call, once), so they expire early, with the transaction.
  const validFor = opts.validForLedgers ?? DEFAULT_VALID_FOR_LEDGERS;
  const maxLedger = okSim.latestLedger + 1 +
    (channel ? Math.min(validFor, SIGNED_AUTH_LEDGERS) : validFor);
  // Through a channel, the keeper signs each checked entry (its signature expires with the
  // transaction's bound: it is worth nothing after it), and the transaction carries those.
  const signed = channel
    ? await signEntries(auth, keypair, maxLedger, chain.networkPassphrase)
    : auth;
  const prepared = rpc.assembleTransaction(
    signed === auth ? tx : build(bid, signed),
    okSim,
  ).setLedgerbounds(0, maxLedger).build();
  // What gets signed is what was checked (assembling copies the simulation's entries, or keeps
  // the keeper-signed ones, which differ from the checked ones only in their signature).
  if (!sameEntries(assembledAuth(prepared), signed)) {
    throw new Error("assembled transaction's authorization differs from the checked one");
  }
  prepared.sign(source);
  const sent = await sendAndConfirm(chain, prepared, opts);
  if (sent.failed) {
    throw new ContractCallError(
      contractId,
      fn,
      sent.failed.hostError,
      `transaction failed${sent.failed.opCode ? ` (${sent.failed.opCode})` : ""}`,
      "transaction",
      sent.hash,
    );
  }
  return {
    hash: sent.hash,
    ledger: sent.ledger,
    returnValue: sent.returnValue,
    confirmMs: sent.confirmMs,
    restoredEntries: archivedEntryKeys(okSim.transactionData.build()).length,
  };
}

/** `contractId.fn(args)` as an operation, carrying `auth` when given (keeper-signed entries). */
function callOp(
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
  auth?: xdr.SorobanAuthorizationEntry[],
): xdr.Operation {
  const op = new Contract(contractId).call(fn, ...args);
  if (!auth) return op;
  const body = op.body as xdr.OperationBody & { type: "invokeHostFunction" };
  return Operation.invokeHostFunction({ func: body.invokeHostFunctionOp.hostFunction, auth });
}

/**
 * The keeper's signatures of checked address-credential entries, valid until `untilLedger`;
 * each signed entry must still hold the very invocation that was checked.
 */
async function signEntries(
  entries: readonly xdr.SorobanAuthorizationEntry[],
  keypair: Keypair,
  untilLedger: number,
  passphrase: string,
): Promise<xdr.SorobanAuthorizationEntry[]> {
  const signed = await Promise.all(
    entries.map((e) => authorizeEntry(e, keypair, untilLedger, passphrase)),
  );
  signed.forEach((s, i) => {
    if (s.rootInvocation.toXDR("base64") !== entries[i].rootInvocation.toXDR("base64")) {
      throw new Error("a signed authorization entry differs from the checked one");
    }
  });
  return signed;
}

/** Checks the recorded entries against `opts.auth`; refusals are reported, then thrown. */
function guardAuth(
  entries: readonly xdr.SorobanAuthorizationEntry[],
  contractId: string,
  fn: string,
  args: readonly xdr.ScVal[],
  opts: CallOptions,
  signer?: string,
): void {
  try {
    checkAuthEntries(entries, [rootCall(contractId, fn, args, opts.auth)], { signer });
  } catch (err) {
    if (err instanceof UnexpectedAuthError) {
      err.txCall = `${fn} on ${contractId}`;
      opts.onAuthRefused?.(err);
    }
    throw err;
  }
}

function assembledAuth(tx: Transaction): xdr.SorobanAuthorizationEntry[] {
  const op = tx.operations[0] as { auth?: xdr.SorobanAuthorizationEntry[] };
  return op.auth ?? [];
}

function sameEntries(
  a: readonly xdr.SorobanAuthorizationEntry[],
  b: readonly xdr.SorobanAuthorizationEntry[],
): boolean {
  return a.length === b.length && a.every((e, i) => e.toXDR("base64") === b[i].toXDR("base64"));
}

/**
 * Sends the RestoreFootprint transaction a simulation's `restorePreamble` describes, signed by
 * `keypair`. The caller holds {@link withSourceLock} for the account.
 */
export async function restoreFromPreamble(
  chain: ChainRpc,
  keypair: Keypair,
  preamble: { minResourceFee: string; transactionData: { build(): xdr.SorobanTransactionData } },
  opts: InvokeOptions = {},
): Promise<string> {
  const [account, fee, head] = await Promise.all([
    chain.server.getAccount(keypair.publicKey()),
    inclusionFeeFor(chain, opts),
    chain.server.getLatestLedger(),
  ]);
  const tx = new TransactionBuilder(account, {
    fee: String(fee),
    networkPassphrase: chain.networkPassphrase,
    ledgerbounds: {
      minLedger: 0,
      maxLedger: head.sequence + 1 + (opts.validForLedgers ?? DEFAULT_VALID_FOR_LEDGERS),
    },
    timebounds: { minTime: 0, maxTime: 0 },
  })
    .setSorobanData(preamble.transactionData.build())
    .addOperation(Operation.restoreFootprint({}))
    .build();
  tx.sign(keypair);
  const r = await sendAndConfirm(chain, tx, opts);
  if (r.failed) throw new Error(`RestoreFootprint failed: ${r.failed.opCode ?? "?"}`);
  return r.hash;
}

// The send-and-confirm path itself is shared with the web and deploy (send.ts); the keeper's
// names stay importable from here.
export { type Confirmed, hostErrorFromDiagnostics, sendAndConfirm } from "./send.ts";
