/**
 * The invocation engine: runs one InvokeHostFunction (or a deployment) against a read-only
 * ledger view, with nested frames, rollback, footprint checks, authorization, events and
 * resource estimates.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { InvokeRequest, InvokeResult } from "./types.ts";
import { FootprintError, LedgerState } from "./storage.ts";
import { errorScVal, EventLog, hostErrorString } from "./events.ts";
import { type AuthHost, AuthManager } from "./auth.ts";
import { addressScVal, SpecCodec } from "./codec.ts";
import { addressFromScAddress, instanceLedgerKey, scAddressFromString } from "./keys.ts";
import { SAC_SPEC_ENTRIES, type SacCtx, sacInvoke } from "./sac.ts";
import { contractCodeKey, ledgerEntrySize } from "./xdr_fast.ts";
import { HostErr } from "./errors.ts";
import { toHex } from "../util.ts";
import { MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL } from "../constants.ts";
import { type Callee, type CallKind, Frame } from "./frame.ts";
import {
  dataExtend,
  dataGet,
  dataPut,
  instanceGet,
  instanceSet,
  persistInstance,
} from "./contract_data.ts";
import { authenticate, consumeNonce, loadAccount, requireAuth } from "./account_auth.ts";
import { createContract, createInstance, uploadWasm } from "./deploy.ts";
import { compileContract, type CompiledContract, runWasm, WasmRefused } from "./wasm/vm.ts";
import type { VmShared } from "./wasm/ctx.ts";

/** The network's per-transaction instruction limit (simulation runs with it). */
const TX_INSTRUCTION_LIMIT = 100_000_000;

export { HostErr } from "./errors.ts";
export { codeEntry, instanceEntry } from "./contract_data.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

// Resource model: deterministic, proportional to work (the node's fee model uses it).
const COST = {
  base: 400_000,
  frame: 250_000,
  key: 30_000,
  byte: 40,
  event: 15_000,
  signature: 700_000,
};

const SAC_CODEC: SpecCodec = new SpecCodec(SAC_SPEC_ENTRIES);

const SYM_FN_CALL = xdr.ScVal.scvSymbol("fn_call");
const SYM_FN_RETURN = xdr.ScVal.scvSymbol("fn_return");
const SYM_ERROR = xdr.ScVal.scvSymbol("error");
const SYM_LOG = xdr.ScVal.scvSymbol("log");
const VOID = xdr.ScVal.scvVoid();

const symCache = new Map<string, xdr.ScVal>();
function sym(s: string): xdr.ScVal {
  let v = symCache.get(s);
  if (v === undefined) {
    v = xdr.ScVal.scvSymbol(s);
    if (symCache.size > 10_000) symCache.clear();
    symCache.set(s, v);
  }
  return v;
}

/** One invocation (one InvokeHostFunction op, or one deployment). */
export class Invocation implements AuthHost {
  readonly state: LedgerState;
  readonly events = new EventLog();
  readonly frames: Frame[] = [];
  readonly auth: AuthManager;
  readonly liveUntil = new Map<string, number>();
  framesRun = 0;
  /** CPU instructions metered in Wasm frames and host functions called from Wasm. */
  wasmInstructions = 0;
  /** Per-invocation Wasm state (object table, PRNG seed), created on first Wasm call. */
  vm?: VmShared;
  sigChecks = 0;
  rootErrorString?: string;

  constructor(readonly req: InvokeRequest) {
    this.state = new LedgerState(req.reader, req.footprint);
    this.auth = new AuthManager(this, req.mode);
  }

  // --- AuthHost ---------------------------------------------------------------------------

  get source(): string {
    return this.req.source;
  }

  get ledgerSeq(): number {
    return this.req.ledger.sequence;
  }

  get maxLiveUntil(): number {
    return this.req.ledger.sequence + this.req.ledger.maxEntryTtl - 1;
  }

  get networkId(): Uint8Array {
    return this.req.ledger.networkId;
  }

  isContractError(e: unknown): boolean {
    return e instanceof HostErr && e.type === "Contract";
  }

  errorValue(e: unknown): xdr.ScVal {
    return e instanceof HostErr
      ? errorScVal(e.type, e.code)
      : errorScVal("Context", "InternalError");
  }

  randomNonce(): bigint {
    const b = new Uint8Array(8);
    crypto.getRandomValues(b);
    return new DataView(b.buffer).getBigUint64(0) & ((1n << 63n) - 1n);
  }

  loadAccount(address: string): void {
    loadAccount(this, address);
  }

  consumeNonce(address: string, nonce: bigint, liveUntil: number): void {
    consumeNonce(this, address, nonce, liveUntil);
  }

  authenticate(
    address: string,
    payload: Uint8Array,
    signature: xdr.ScVal,
    root: xdr.SorobanAuthorizedInvocation,
  ): void {
    authenticate(this, address, payload, signature, root);
  }

  /** Writes a new instance entry (errors if the contract exists). */
  createInstance(
    id: string,
    executable: xdr.ContractExecutable,
    storage: xdr.ScMapEntry[] | null,
  ): void {
    createInstance(this, id, executable, storage);
  }

  /** The instruction limit: the transaction's declared instructions, else the network's. */
  get instructionLimit(): number {
    return this.req.instructionLimit ?? TX_INSTRUCTION_LIMIT;
  }

  /** Instructions left for Wasm execution now. */
  fuelLeft(): number {
    return this.instructionLimit - this.instructionsSoFar();
  }

  /** Instructions charged so far (the resource model plus metered Wasm work). */
  instructionsSoFar(): number {
    return COST.base + COST.frame * this.framesRun + this.wasmInstructions;
  }

  /** The compiled Wasm of contract code (cached by hash; refused code is a WasmVm error). */
  compiled(hash: Uint8Array, code: Uint8Array): CompiledContract {
    try {
      return compileContract(code, this.req.ledger.protocolVersion, toHex(hash));
    } catch (e) {
      if (e instanceof WasmRefused) {
        throw this.err("WasmVm", e.code, `contract code refused: ${e.message}`, [bytesVal(hash)]);
      }
      throw e;
    }
  }

  /** Creates a host error and records its diagnostic `error` event in the current context. */
  err(type: string, code: number | string, msg: string, args: xdr.ScVal[] = []): HostErr {
    this.diagError(type, code, msg, args);
    return new HostErr(type, code, msg, args);
  }

  /** Records a diagnostic `error` event without raising. */
  diagError(type: string, code: number | string, msg: string, args: xdr.ScVal[] = []): void {
    const top = this.frames[this.frames.length - 1];
    this.events.add({
      contractId: top ? top.callee.id : null,
      diagnostic: true,
      topics: [SYM_ERROR, errorScVal(type, code)],
      data: args.length === 0
        ? xdr.ScVal.scvString(msg)
        : xdr.ScVal.scvVec([xdr.ScVal.scvString(msg), ...args]),
    });
  }

  log(msg: string, args: xdr.ScVal[] = []): void {
    const top = this.frames[this.frames.length - 1];
    this.events.add({
      contractId: top ? top.callee.id : null,
      diagnostic: true,
      topics: [SYM_LOG],
      data: args.length === 0
        ? xdr.ScVal.scvString(msg)
        : xdr.ScVal.scvVec([xdr.ScVal.scvString(msg), ...args]),
    });
  }

  // --- Storage with footprint errors ------------------------------------------------------

  /** Checked read; a footprint violation raises `Error(Storage, ExceededLimit)` with `what`. */
  read(key: string, what: () => [string, xdr.ScVal[]]): xdr.LedgerEntry | undefined {
    try {
      return this.state.get(key);
    } catch (e) {
      if (e instanceof FootprintError) {
        const [msg, args] = what();
        throw this.err("Storage", "ExceededLimit", msg, args);
      }
      throw e;
    }
  }

  /** Checked write (null deletes). */
  write(key: string, entry: xdr.LedgerEntry | null, what: () => [string, xdr.ScVal[]]): void {
    try {
      if (entry) this.state.put(key, entry);
      else this.state.del(key);
    } catch (e) {
      if (e instanceof FootprintError) {
        const [msg, args] = what();
        throw this.err("Storage", "ExceededLimit", msg, args);
      }
      throw e;
    }
  }

  /**
   * The live-until ledger an entry has at this point of the run: an extension requested earlier
   * in the run, else its stored TTL, else (created in this run) the minimum TTL of its
   * durability. A reader that does not know TTLs makes existing entries count as expiring now.
   */
  currentLiveUntil(key: string, temporary: boolean): number {
    const inReader = this.req.reader.get(key) !== undefined;
    const base = inReader
      ? this.req.reader.liveUntil?.(key) ?? this.ledgerSeq
      : this.ledgerSeq - 1 +
        (temporary
          ? this.req.ledger.minTempTtl ?? MIN_TEMPORARY_TTL
          : this.req.ledger.minPersistentTtl ?? MIN_PERSISTENT_TTL);
    return Math.max(this.liveUntil.get(key) ?? 0, base);
  }

  requestLiveUntil(key: string, liveUntil: number): void {
    const prev = this.liveUntil.get(key) ?? 0;
    if (liveUntil > prev) this.liveUntil.set(key, liveUntil);
  }

  // --- Contract data ----------------------------------------------------------------------

  // --- Instance storage -------------------------------------------------------------------

  // --- Auth -------------------------------------------------------------------------------

  // --- Calls ------------------------------------------------------------------------------

  /** Resolves a contract's instance and executable (checked reads of instance and code). */
  resolve(contract: string): Callee {
    let sca: xdr.ScAddress;
    try {
      sca = scAddressFromString(contract);
    } catch {
      throw this.err("Value", "InvalidInput", "invalid contract address");
    }
    if (sca.type !== "scAddressTypeContract") {
      throw this.err("Value", "UnexpectedType", "not a contract address", [addressScVal(contract)]);
    }
    const instanceKey = instanceLedgerKey(contract);
    const entry = this.read(instanceKey, () => [
      "trying to access contract instance key outside of the footprint",
      [addressScVal(contract)],
    ]);
    if (!entry) {
      throw this.err(
        "Storage",
        "MissingValue",
        "trying to get non-existing value for contract instance",
        [
          addressScVal(contract),
        ],
      );
    }
    const instance = ((entry.data as Any).contractData.val as Any)
      .instance as xdr.ScContractInstance;
    const id: Uint8Array = (sca as Any).contractId.value;
    if (instance.executable.type === "contractExecutableStellarAsset") {
      return { kind: "sac", codec: SAC_CODEC, contract, id, scAddress: sca, instanceKey, instance };
    }
    const hash: Uint8Array = (instance.executable as Any).wasmHash.value;
    const codeKey = contractCodeKey(hash);
    const code = this.read(codeKey, () => [
      "trying to access contract code key outside of the footprint",
      [bytesVal(hash)],
    ]);
    if (!code) {
      throw this.err(
        "Storage",
        "MissingValue",
        "trying to get non-existing value for contract code",
        [bytesVal(hash)],
      );
    }
    const wasm = this.compiled(hash, (code.data as Any).contractCode.code);
    return {
      kind: "wasm",
      wasm,
      codeKey,
      codec: wasm.codec,
      contract,
      id,
      scAddress: sca,
      instanceKey,
      instance,
    };
  }

  /** Calls `fn` on `contract` with ScVal args in a new frame; returns the ScVal result. */
  callContract(
    caller: Frame | null,
    contract: string,
    fn: string,
    args: xdr.ScVal[],
    kind: CallKind,
  ): xdr.ScVal {
    const calleeId = contractIdOrNull(contract);
    this.events.add({
      contractId: caller ? caller.callee.id : null,
      diagnostic: true,
      topics: [
        SYM_FN_CALL,
        calleeId ? xdr.ScVal.scvBytes(calleeId as Any) : addressScVal(contract),
        sym(fn),
      ],
      data: args.length === 0 ? VOID : args.length === 1 ? args[0] : xdr.ScVal.scvVec(args),
    });
    if (kind !== "check_auth" && this.frames.some((f) => f.contract === contract)) {
      throw this.err("Context", "InvalidAction", "Contract re-entry is not allowed");
    }
    const callee = this.resolve(contract);
    const authSnapshot = this.auth.snapshot();
    const mark = this.state.mark();
    // TTL extensions belong to the frame's storage changes: a failed call drops its own.
    const ttlMark = new Map(this.liveUntil);
    const eventStart = this.events.length;
    const frame = new Frame(callee, fn, args, caller);
    this.frames.push(frame);
    this.auth.pushFrame(contract, fn);
    this.framesRun++;
    try {
      const ret = callee.kind === "sac"
        ? sacInvoke(this.sacCtx(frame), fn, args)
        : runWasm(this, frame, kind, callee.wasm!);
      if (frame.poison) throw frame.poison;
      persistInstance(this, frame);
      this.events.add({
        contractId: callee.id,
        diagnostic: true,
        topics: [SYM_FN_RETURN, sym(fn)],
        data: ret,
      });
      this.frames.pop();
      this.auth.popFrame();
      return ret;
    } catch (e) {
      const he = this.toHostErr(e, frame);
      if (this.frames.length === 1 && this.rootErrorString === undefined) {
        // The real HostError's event log is captured before the root frame is rolled back.
        this.rootErrorString = hostErrorString(he.type, he.code, this.events.list);
      }
      this.events.markFailed(eventStart);
      this.state.rollback(mark);
      this.liveUntil.clear();
      for (const [k, v] of ttlMark) this.liveUntil.set(k, v);
      this.frames.pop();
      this.auth.popFrame();
      this.auth.rollback(authSnapshot);
      throw he;
    }
  }

  /** Converts anything thrown inside `frame` into a HostErr (recording its diagnostics). */
  toHostErr(e: unknown, frame: Frame): HostErr {
    if (e instanceof HostErr) return e;
    const msg = e instanceof Error ? e.message : String(e);
    this.log(`caught panic '${msg}' from contract function '${frame.fn}'`);
    const he = this.err("WasmVm", "InvalidAction", "VM call trapped: UnreachableCodeReached", [
      sym(frame.fn),
    ]);
    he.detail = msg;
    return he;
  }

  private sacCtx(frame: Frame): SacCtx {
    // deno-lint-ignore no-this-alias
    const h = this;
    return {
      contract: frame.contract,
      ledgerSeq: h.ledgerSeq,
      maxLiveUntil: h.maxLiveUntil,
      baseReserve: h.req.ledger.baseReserve ?? 5_000_000,
      instanceGet: (k) => instanceGet(h, frame, k),
      instanceSet: (k, v) => instanceSet(h, frame, k, v),
      dataGet: (k, d) => dataGet(h, frame, k, d),
      dataPut: (k, v, d) => dataPut(h, frame, k, v, d),
      dataExtend: (k, d, l) => dataExtend(h, frame, k, d, Math.min(l, h.maxLiveUntil)),
      entryGet: (k) =>
        h.read(k, () => ["trying to access account or trustline outside of the footprint", []]),
      entryPut: (k, e) =>
        h.write(k, e, () => ["trying to access account or trustline outside of the footprint", []]),
      requireAuth: (a) => requireAuth(h, frame, a, frame.args),
      emit: (topics, data) => h.emit(frame, topics, data),
      err: (type, code, msg, args) => h.err(type, code, msg, args),
    };
  }

  emit(frame: Frame, topics: xdr.ScVal[], data: xdr.ScVal): void {
    this.events.add({ contractId: frame.callee.id, diagnostic: false, topics, data });
  }

  /** Runs `f` for a contract in `frame`; a host error raised by it poisons the frame. */
  guard<T>(frame: Frame, f: () => T): T {
    try {
      return f();
    } catch (e) {
      if (e instanceof HostErr && !frame.poison) frame.poison = e;
      throw e;
    }
  }

  // --- Entry points -----------------------------------------------------------------------

  /** Runs the request's host function. */
  run(): InvokeResult {
    const hf = this.req.hostFunction;
    let ret: xdr.ScVal;
    try {
      this.auth.load(this.req.auth);
      switch (hf.type) {
        case "hostFunctionTypeInvokeContract": {
          const a = (hf as Any).invokeContract as xdr.InvokeContractArgs;
          const contract = addressFromScAddress(a.contractAddress);
          ret = this.callContract(null, contract, String(a.functionName), a.args, "root");
          break;
        }
        case "hostFunctionTypeCreateContract":
        case "hostFunctionTypeCreateContractV2":
          ret = createContract(this, hf);
          break;
        case "hostFunctionTypeUploadContractWasm":
          ret = uploadWasm(this, (hf as Any).wasm);
          break;
        default:
          throw this.err("Context", "InvalidInput", "unsupported host function");
      }
      this.auth.emulateAuthentication();
    } catch (e) {
      return this.failure(e);
    }
    return this.success(ret);
  }

  private success(ret: xdr.ScVal): InvokeResult {
    const changes = this.state.changes();
    const readWrite = [...this.state.written];
    const readOnly = [...this.state.accessed].filter((k) => !this.state.written.has(k));
    let writeBytes = 0;
    for (const e of changes.values()) if (e) writeBytes += ledgerEntrySize(e);
    const diskReadBytes = this.state.diskReadBytes;
    const sigs = Math.max(this.sigChecks, this.auth.signatureCount);
    const instructions = this.instructionsSoFar() +
      COST.key * this.state.accessed.size + COST.byte * (diskReadBytes + writeBytes) +
      COST.event * this.events.length + COST.signature * sigs;
    if (instructions > this.instructionLimit) {
      return this.failure(
        this.err("Budget", "ExceededLimit", "CPU instruction limit exceeded", [
          xdr.ScVal.scvU64(BigInt(instructions) as Any),
          xdr.ScVal.scvU64(BigInt(this.instructionLimit) as Any),
        ]),
      );
    }
    return {
      ok: true,
      returnValue: ret,
      events: this.events.contractEvents(),
      diagnosticEvents: this.events.diagnosticEvents(),
      changes,
      readOnly,
      readWrite,
      auth: this.req.mode === "enforce" ? this.req.auth : this.auth.recordedEntries(),
      resources: { instructions, diskReadBytes, writeBytes },
      liveUntil: this.liveUntil,
    };
  }

  private failure(e: unknown): InvokeResult {
    let he: HostErr;
    if (e instanceof HostErr) he = e;
    else {
      const msg = e instanceof Error ? e.message : String(e);
      he = this.err("Context", "InternalError", `host failure: ${msg}`);
    }
    const errorString = this.rootErrorString ?? hostErrorString(he.type, he.code, this.events.list);
    this.events.markFailed(0);
    return {
      ok: false,
      error: { type: he.type, code: he.code, message: he.detail ?? he.msg },
      errorString,
      events: [],
      diagnosticEvents: this.events.diagnosticEvents(),
      changes: new Map(),
      readOnly: [...this.state.accessed].filter((k) => !this.state.written.has(k)),
      readWrite: [...this.state.written],
      auth: this.req.mode === "enforce" ? this.req.auth : [],
      resources: {
        instructions: COST.base,
        diskReadBytes: this.state.diskReadBytes,
        writeBytes: 0,
      },
      liveUntil: new Map(),
    };
  }

  /** Final result after an in-process deployment (or failure). */
  finish(fn: () => void): InvokeResult {
    try {
      fn();
    } catch (e) {
      return this.failure(e);
    }
    return this.success(VOID);
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function contractIdOrNull(c: string): Uint8Array | null {
  try {
    const a = scAddressFromString(c) as Any;
    return a.type === "scAddressTypeContract" ? a.contractId.value : null;
  } catch {
    return null;
  }
}

function bytesVal(b: Uint8Array): xdr.ScVal {
  return xdr.ScVal.scvBytes(b as Any);
}

/** The SAC's codec (SAC interface as the SDK's `SAC_SPEC`). */
export { SAC_CODEC };
