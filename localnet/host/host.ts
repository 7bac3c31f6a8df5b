/**
 * The invocation engine: runs one InvokeHostFunction (or a deployment) against a read-only
 * ledger view, with nested frames, rollback, footprint checks, authorization, events and
 * resource estimates.
 *
 * @module
 */
import { Asset, nativeToScVal, xdr } from "@stellar/stellar-sdk";
import { verifyEd25519 } from "../sig.ts";
import {
  ContractError,
  type Env,
  type Storage,
  type TryCallResult,
  type TypeDef,
} from "../../contracts/sdk.ts";
import type { InvokeRequest, InvokeResult } from "./types.ts";
import { FootprintError, LedgerState } from "./storage.ts";
import { errorScVal, EventLog, hostErrorString } from "./events.ts";
import { type AuthHost, AuthManager, contractAuthFn, sha256 as sha256Bytes } from "./auth.ts";
import { addressScVal, CodecError, SpecCodec } from "./codec.ts";
import {
  accountBytes,
  addressFromScAddress,
  contractIdFromAddress,
  instanceLedgerKey,
  scAddressFromString,
} from "./keys.ts";
import { moduleByHash, type RegisteredModule, toHex } from "./registry.ts";
import { SAC_SPEC_ENTRIES, type SacCtx, sacInstanceStorage, sacInvoke } from "./sac.ts";
import {
  accountKey,
  cmpBytes,
  compareScVal,
  contractCodeKey,
  contractDataKey,
  ledgerEntrySize,
  scvToken,
} from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A Soroban host error: `Error(type, code)` plus its diagnostic message. */
export class HostErr extends Error {
  constructor(
    readonly type: string,
    readonly code: number | string,
    readonly msg: string,
    readonly args: xdr.ScVal[] = [],
    /** Human message for contract errors (the error enum's doc, or a ContractError message). */
    public detail?: string,
  ) {
    super(
      type === "Contract" ? `Error(Contract, #${code}): ${msg}` : `Error(${type}, ${code}): ${msg}`,
    );
    this.name = "HostErr";
  }
}

/** Errors a `try_call` cannot recover from (as rs-soroban-env `is_recoverable`). */
function isRecoverable(e: HostErr): boolean {
  if (e.type !== "Contract" && e.code === "InternalError") return false;
  if (e.code === "ExceededLimit" && (e.type === "Storage" || e.type === "Budget")) return false;
  return true;
}

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

/** What a contract's executable resolves to. */
interface Executable {
  kind: "module" | "sac";
  reg?: RegisteredModule;
  codeKey?: string;
  codec: SpecCodec;
}

/** A resolved contract being called. */
interface Callee extends Executable {
  contract: string;
  id: Uint8Array;
  scAddress: xdr.ScAddress;
  instanceKey: string;
  instance: xdr.ScContractInstance;
}

const executableCache = new WeakMap<xdr.ScContractInstance, Executable | { missing: Uint8Array }>();

/** One contract call on the stack. */
class Frame {
  /** Instance storage, by key token (loaded on first use). */
  storage?: Map<string, xdr.ScMapEntry>;
  dirty = false;
  /** A host error raised inside this frame (fails the frame even if the contract swallowed it). */
  poison?: HostErr;
  readonly contract: string;

  constructor(
    readonly callee: Callee,
    readonly fn: string,
    readonly args: xdr.ScVal[],
    readonly caller: Frame | null,
  ) {
    this.contract = callee.contract;
  }
}

/** How a call is made. */
type CallKind = "root" | "call" | "try" | "constructor" | "check_auth";

/** One invocation (one InvokeHostFunction op, or one deployment). */
export class Invocation implements AuthHost {
  readonly state: LedgerState;
  readonly events = new EventLog();
  readonly frames: Frame[] = [];
  readonly auth: AuthManager;
  readonly liveUntil = new Map<string, number>();
  private framesRun = 0;
  private sigChecks = 0;
  private rootErrorString?: string;
  readonly ledgerView: { readonly sequence: number; readonly timestamp: bigint };

  constructor(readonly req: InvokeRequest) {
    this.state = new LedgerState(req.reader, req.footprint);
    this.ledgerView = Object.freeze({
      sequence: req.ledger.sequence,
      timestamp: req.ledger.timestamp,
    });
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

  private log(msg: string, args: xdr.ScVal[] = []): void {
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

  private requestLiveUntil(key: string, liveUntil: number): void {
    const prev = this.liveUntil.get(key) ?? 0;
    if (liveUntil > prev) this.liveUntil.set(key, liveUntil);
  }

  // --- Contract data ----------------------------------------------------------------------

  dataGet(frame: Frame, key: xdr.ScVal, durability: 0 | 1): xdr.ScVal | undefined {
    const lk = contractDataKey(frame.callee.scAddress, key, durability);
    const e = this.read(
      lk,
      () => ["trying to access contract storage key outside of the footprint", [key]],
    );
    return e ? (e.data as Any).contractData.val : undefined;
  }

  dataPut(frame: Frame, key: xdr.ScVal, val: xdr.ScVal, durability: 0 | 1): void {
    const lk = contractDataKey(frame.callee.scAddress, key, durability);
    const entry = new xdr.LedgerEntry({
      lastModifiedLedgerSeq: this.ledgerSeq,
      data: xdr.LedgerEntryData.contractData(
        new xdr.ContractDataEntry({
          ext: xdr.ExtensionPoint.v0(),
          contract: frame.callee.scAddress,
          key,
          durability: durability === 1
            ? xdr.ContractDataDurability.persistent
            : xdr.ContractDataDurability.temporary,
          val,
        }),
      ),
      ext: xdr.LedgerEntryExt.v0(),
    });
    this.write(
      lk,
      entry,
      () => ["trying to access contract storage key outside of the footprint", [key]],
    );
  }

  dataDel(frame: Frame, key: xdr.ScVal, durability: 0 | 1): void {
    const lk = contractDataKey(frame.callee.scAddress, key, durability);
    this.write(
      lk,
      null,
      () => ["trying to access contract storage key outside of the footprint", [key]],
    );
  }

  dataExtend(frame: Frame, key: xdr.ScVal, durability: 0 | 1, liveUntil: number): void {
    const lk = contractDataKey(frame.callee.scAddress, key, durability);
    const e = this.read(
      lk,
      () => ["trying to access contract storage key outside of the footprint", [key]],
    );
    if (!e) {
      throw this.err(
        "Storage",
        "MissingValue",
        "trying to extend TTL of a missing contract storage key",
        [key],
      );
    }
    if (liveUntil > this.maxLiveUntil) {
      throw this.err("Storage", "InvalidAction", "trying to extend past max live_until ledger", [
        xdr.ScVal.scvU32(liveUntil),
        xdr.ScVal.scvU32(this.maxLiveUntil),
      ]);
    }
    this.requestLiveUntil(lk, liveUntil);
  }

  // --- Instance storage -------------------------------------------------------------------

  private instanceMap(frame: Frame): Map<string, xdr.ScMapEntry> {
    if (!frame.storage) {
      frame.storage = new Map();
      for (const e of frame.callee.instance.storage ?? []) frame.storage.set(scvToken(e.key), e);
    }
    return frame.storage;
  }

  instanceGet(frame: Frame, key: xdr.ScVal): xdr.ScVal | undefined {
    return this.instanceMap(frame).get(scvToken(key))?.val;
  }

  instanceSet(frame: Frame, key: xdr.ScVal, val: xdr.ScVal): void {
    this.instanceMap(frame).set(scvToken(key), new xdr.ScMapEntry({ key, val }));
    frame.dirty = true;
  }

  instanceDel(frame: Frame, key: xdr.ScVal): void {
    if (this.instanceMap(frame).delete(scvToken(key))) frame.dirty = true;
  }

  instanceExtend(frame: Frame, liveUntil: number): void {
    this.requestLiveUntil(frame.callee.instanceKey, liveUntil);
    if (frame.callee.codeKey) this.requestLiveUntil(frame.callee.codeKey, liveUntil);
  }

  /** Writes a frame's instance storage back to its instance entry (one ledger entry). */
  private persistInstance(frame: Frame): void {
    if (!frame.dirty || !frame.storage) return;
    const entries = [...frame.storage.values()].sort((a, b) => compareScVal(a.key, b.key));
    const instance = new xdr.ScContractInstance({
      executable: frame.callee.instance.executable,
      storage: entries,
    });
    this.write(
      frame.callee.instanceKey,
      instanceEntry(frame.callee.scAddress, instance, this.ledgerSeq),
      () => ["trying to access contract instance key outside of the footprint", [
        addressScVal(frame.contract),
      ]],
    );
  }

  // --- Auth -------------------------------------------------------------------------------

  requireAuth(frame: Frame, address: string, args: xdr.ScVal[]): void {
    this.auth.requireAuth(address, contractAuthFn(frame.contract, frame.fn, args));
  }

  loadAccount(address: string): void {
    const e = this.read(accountKey(accountBytes(address)), () => [
      "trying to access account outside of the footprint",
      [addressScVal(address)],
    ]);
    if (!e) {
      throw this.err("Storage", "MissingValue", "trying to get non-existing value for account", [
        addressScVal(address),
      ]);
    }
  }

  consumeNonce(address: string, nonce: bigint, liveUntil: number): void {
    const sca = scAddressFromString(address);
    const key = xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce }));
    const lk = contractDataKey(sca, key, 0);
    const outside = (): [string, xdr.ScVal[]] => [
      "trying to access nonce outside of footprint for address",
      [addressScVal(address)],
    ];
    if (this.read(lk, outside)) {
      throw this.err("Auth", "ExistingValue", "nonce already exists for address", [
        addressScVal(address),
      ]);
    }
    const entry = new xdr.LedgerEntry({
      lastModifiedLedgerSeq: this.ledgerSeq,
      data: xdr.LedgerEntryData.contractData(
        new xdr.ContractDataEntry({
          ext: xdr.ExtensionPoint.v0(),
          contract: sca,
          key,
          durability: xdr.ContractDataDurability.temporary,
          val: VOID,
        }),
      ),
      ext: xdr.LedgerEntryExt.v0(),
    });
    this.write(lk, entry, outside);
    const minTemp = this.ledgerSeq + (this.req.ledger.minTempTtl ?? 16) - 1;
    this.requestLiveUntil(lk, Math.max(liveUntil, minTemp));
  }

  authenticate(
    address: string,
    payload: Uint8Array,
    signature: xdr.ScVal,
    root: xdr.SorobanAuthorizedInvocation,
  ): void {
    if (address.startsWith("C")) {
      this.checkContractAuth(address, payload, signature, root);
      return;
    }
    this.sigChecks++;
    const contractErr = (msg: string, args: xdr.ScVal[] = []) => this.err("Contract", 5, msg, args);
    if (signature.type !== "scvVec") {
      throw this.err("Value", "UnexpectedType", "account signature is not a vector of signatures");
    }
    const sigs = ((signature as Any).vec ?? []) as xdr.ScVal[];
    if (sigs.length > 20) {
      throw contractErr("too many account signers", [xdr.ScVal.scvU32(sigs.length)]);
    }
    if (sigs.length === 0) throw contractErr("no account signatures found");
    const acctEntry = this.read(accountKey(accountBytes(address)), () => [
      "trying to access account outside of the footprint",
      [addressScVal(address)],
    ]);
    if (!acctEntry) {
      throw this.err("Storage", "MissingValue", "trying to get non-existing value for account", [
        addressScVal(address),
      ]);
    }
    const account = (acctEntry.data as Any).account;
    const thresholds: Uint8Array = account.thresholds.value ?? account.thresholds;
    const master = accountBytes(address);
    let prev: Uint8Array | null = null;
    let weight = 0;
    for (const s of sigs) {
      const pk = mapBytes(s, "public_key", 32);
      const sig = mapBytes(s, "signature", 64);
      if (!pk || !sig) {
        throw this.err(
          "Value",
          "UnexpectedType",
          "account signature entry is not {public_key, signature}",
        );
      }
      if (prev && cmpBytes(prev, pk) >= 0) {
        throw contractErr("public keys are not ordered", [bytesVal(prev), bytesVal(pk)]);
      }
      if (!verifyEd25519(pk, payload, sig)) {
        throw this.err("Crypto", "InvalidInput", "failed ED25519 verification");
      }
      let w = 0;
      if (cmpBytes(pk, master) === 0) w = thresholds[0];
      else {
        for (const signer of account.signers as Any[]) {
          const k = signer.key;
          if (
            k.type === "signerKeyTypeEd25519" && cmpBytes(k.ed25519.value ?? k.ed25519, pk) === 0
          ) {
            w = signer.weight;
          }
        }
      }
      if (w === 0) throw contractErr("signer does not belong to account", [bytesVal(pk)]);
      weight += w;
      prev = pk;
    }
    const medium = thresholds[2];
    if (weight < medium) {
      throw contractErr("signature weight is lower than threshold", [
        xdr.ScVal.scvU32(weight),
        xdr.ScVal.scvU32(medium),
      ]);
    }
  }

  /** Custom account: calls `__check_auth(payload, signature, auth_contexts)` on the contract. */
  private checkContractAuth(
    address: string,
    payload: Uint8Array,
    signature: xdr.ScVal,
    root: xdr.SorobanAuthorizedInvocation,
  ): void {
    const contexts: xdr.ScVal[] = [];
    const walk = (inv: xdr.SorobanAuthorizedInvocation) => {
      const f = inv.function;
      if (f.type === "sorobanAuthorizedFunctionTypeContractFn") {
        const c = (f as Any).contractFn as xdr.InvokeContractArgs;
        contexts.push(
          xdr.ScVal.scvVec([
            sym("Contract"),
            xdr.ScVal.scvMap([
              new xdr.ScMapEntry({ key: sym("args"), val: xdr.ScVal.scvVec(c.args) }),
              new xdr.ScMapEntry({
                key: sym("contract"),
                val: xdr.ScVal.scvAddress(c.contractAddress),
              }),
              new xdr.ScMapEntry({ key: sym("fn_name"), val: sym(String(c.functionName)) }),
            ]),
          ]),
        );
      }
      inv.subInvocations.forEach(walk);
    };
    walk(root);
    this.callContract(
      this.frames[this.frames.length - 1] ?? null,
      address,
      "__check_auth",
      [xdr.ScVal.scvBytes(payload as Any), signature, xdr.ScVal.scvVec(contexts)],
      "check_auth",
    );
  }

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
    let ex = executableCache.get(instance);
    if (ex === undefined) {
      ex = executableOf(instance);
      // Unregistered code is not cached: its module may be registered later.
      if (!("missing" in ex)) executableCache.set(instance, ex);
    }
    if ("missing" in ex) {
      const codeKey = contractCodeKey(ex.missing);
      const code = this.read(codeKey, () => [
        "trying to access contract code key outside of the footprint",
        [bytesVal(ex && "missing" in ex ? ex.missing : new Uint8Array())],
      ]);
      if (!code) {
        throw this.err(
          "Storage",
          "MissingValue",
          "trying to get non-existing value for contract code",
          [
            bytesVal(ex.missing),
          ],
        );
      }
      throw this.err(
        "WasmVm",
        "InvalidInput",
        "contract code is not a registered TypeScript module",
        [
          bytesVal(ex.missing),
        ],
      );
    }
    if (ex.codeKey) {
      const code = this.read(ex.codeKey, () => [
        "trying to access contract code key outside of the footprint",
        [bytesVal(ex && !("missing" in ex) ? ex.reg!.hash : new Uint8Array())],
      ]);
      if (!code) {
        throw this.err(
          "Storage",
          "MissingValue",
          "trying to get non-existing value for contract code",
          [
            bytesVal(ex.reg!.hash),
          ],
        );
      }
    }
    return {
      ...ex,
      contract,
      id: (sca as Any).contractId.value,
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
    const eventStart = this.events.length;
    const frame = new Frame(callee, fn, args, caller);
    this.frames.push(frame);
    this.auth.pushFrame(contract, fn);
    this.framesRun++;
    try {
      const ret = callee.kind === "sac"
        ? sacInvoke(this.sacCtx(frame), fn, args)
        : this.runModule(frame, kind);
      if (frame.poison) throw frame.poison;
      this.persistInstance(frame);
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
      this.frames.pop();
      this.auth.popFrame();
      this.auth.rollback(authSnapshot);
      throw he;
    }
  }

  /** Converts anything thrown inside `frame` into a HostErr (recording its diagnostics). */
  private toHostErr(e: unknown, frame: Frame): HostErr {
    if (e instanceof HostErr) return e;
    if (e instanceof ContractError) {
      const he = this.err(
        "Contract",
        e.code,
        "escalating Ok(ScErrorType::Contract) frame-exit to Err",
      );
      const custom = e.message !== `Error(Contract, #${e.code})` ? e.message : undefined;
      he.detail = custom ?? frame.callee.codec.errors.get(e.code);
      return he;
    }
    const msg = e instanceof Error ? e.message : String(e);
    this.log(`caught panic '${msg}' from contract function '${frame.fn}'`);
    const he = this.err("WasmVm", "InvalidAction", "VM call trapped: UnreachableCodeReached", [
      sym(frame.fn),
    ]);
    he.detail = msg;
    return he;
  }

  /** Runs a TypeScript module function in `frame`. */
  private runModule(frame: Frame, kind: CallKind): xdr.ScVal {
    const reg = frame.callee.reg!;
    const f = reg.codec.fns.get(frame.fn);
    const impl = reg.module.functions[frame.fn];
    if (!f || typeof impl !== "function") {
      throw this.err("WasmVm", "MissingValue", "trying to invoke non-existent contract function", [
        sym(frame.fn),
      ]);
    }
    if (frame.fn === "__constructor" && kind !== "constructor") {
      throw this.err(
        "Context",
        "InvalidAction",
        "__constructor can only be called when the contract is created",
      );
    }
    if (frame.fn === "__check_auth" && kind !== "check_auth") {
      throw this.err("Context", "InvalidAction", "__check_auth can only be called by the host");
    }
    if (frame.args.length !== f.inputs.length) {
      // A Wasm export called with the wrong number of parameters fails in the VM.
      throw this.err("WasmVm", "InvalidAction", "VM call failed: Func(MismatchingParameterLen)", [
        sym(frame.fn),
      ]);
    }
    const native: Record<string, unknown> = {};
    for (let i = 0; i < f.inputs.length; i++) {
      const inp = f.inputs[i];
      try {
        native[inp.name] = inp.conv.dec(frame.args[i]);
      } catch (e) {
        if (e instanceof CodecError) {
          // soroban-sdk's argument conversion traps (`unreachable`) on a type mismatch.
          this.log(`invalid argument ${inp.name} of ${frame.fn}: ${e.message}`);
          const he = this.err(
            "WasmVm",
            "InvalidAction",
            "VM call trapped: UnreachableCodeReached",
            [
              sym(frame.fn),
            ],
          );
          he.detail = `invalid argument ${inp.name}: ${e.message}`;
          throw he;
        }
        throw e;
      }
    }
    const out = impl(new FrameEnv(this, frame), native);
    if (out !== null && typeof out === "object" && typeof (out as Any).then === "function") {
      (out as Promise<unknown>).then(undefined, () => {});
      throw new Error(
        `contract function ${frame.fn} returned a Promise; contract functions must be synchronous`,
      );
    }
    if (frame.poison) throw frame.poison;
    if (!f.output) return VOID;
    try {
      return f.output.enc(out);
    } catch (e) {
      if (e instanceof CodecError) throw new Error(`return value of ${frame.fn}: ${e.message}`);
      throw e;
    }
  }

  /** The spec codec of a contract (checked read of its instance). */
  codecOf(contract: string): SpecCodec {
    return this.resolve(contract).codec;
  }

  private sacCtx(frame: Frame): SacCtx {
    // deno-lint-ignore no-this-alias
    const h = this;
    return {
      contract: frame.contract,
      ledgerSeq: h.ledgerSeq,
      maxLiveUntil: h.maxLiveUntil,
      baseReserve: h.req.ledger.baseReserve ?? 5_000_000,
      instanceGet: (k) => h.instanceGet(frame, k),
      instanceSet: (k, v) => h.instanceSet(frame, k, v),
      dataGet: (k, d) => h.dataGet(frame, k, d),
      dataPut: (k, v, d) => h.dataPut(frame, k, v, d),
      dataExtend: (k, d, l) => h.dataExtend(frame, k, d, Math.min(l, h.maxLiveUntil)),
      entryGet: (k) =>
        h.read(k, () => ["trying to access account or trustline outside of the footprint", []]),
      entryPut: (k, e) =>
        h.write(k, e, () => ["trying to access account or trustline outside of the footprint", []]),
      requireAuth: (a) => h.requireAuth(frame, a, frame.args),
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

  /** A cross-contract call made by `frame` (native args encoded by the callee's spec). */
  crossCall(
    frame: Frame,
    contract: string,
    fn: string,
    args: unknown,
    kind: "call" | "try",
  ): unknown {
    const codec = this.codecOf(contract);
    const f = codec.fns.get(fn);
    let scArgs: xdr.ScVal[];
    if (f) scArgs = codec.encodeArgs(fn, args as Any);
    else {
      // Unknown function: pass values through; the callee reports the missing function.
      const list = Array.isArray(args) ? args : args ? Object.values(args as object) : [];
      scArgs = list.map((a) => (isScValLike(a) ? a as xdr.ScVal : nativeToScVal(a)));
    }
    let ret: xdr.ScVal;
    try {
      ret = this.callContract(frame, contract, fn, scArgs, kind);
    } catch (e) {
      if (e instanceof HostErr) {
        if (kind === "try" && isRecoverable(e)) {
          this.diagError(e.type, e.code, "contract try_call failed", [
            sym(fn),
            xdr.ScVal.scvVec(scArgs),
          ]);
        } else {
          this.diagError(e.type, e.code, "contract call failed", [
            sym(fn),
            xdr.ScVal.scvVec(scArgs),
          ]);
          this.diagError(
            e.type,
            e.code,
            "escalating error to VM trap from failed host function call: call",
          );
        }
      }
      throw e;
    }
    if (f?.output) return f.output.dec(ret);
    return f ? null : ret;
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
          ret = this.createContract(hf);
          break;
        case "hostFunctionTypeUploadContractWasm":
          ret = this.uploadWasm((hf as Any).wasm);
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
    const instructions = COST.base + COST.frame * this.framesRun +
      COST.key * this.state.accessed.size + COST.byte * (diskReadBytes + writeBytes) +
      COST.event * this.events.length + COST.signature * sigs;
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

  /** UploadContractWasm: stores the code (any bytes; only registered stubs can be instantiated). */
  private uploadWasm(wasm: Uint8Array): xdr.ScVal {
    const hash = sha256Bytes(wasm);
    const key = contractCodeKey(hash);
    const existing = this.read(
      key,
      () => ["trying to access contract code key outside of the footprint", [bytesVal(hash)]],
    );
    if (!existing) {
      this.write(key, codeEntry(hash, wasm, this.ledgerSeq), () => [
        "trying to access contract code key outside of the footprint",
        [bytesVal(hash)],
      ]);
    }
    return xdr.ScVal.scvBytes(hash as Any);
  }

  /** CreateContract(V2): a SAC from an asset, or a registered module's stub Wasm. */
  private createContract(hf: xdr.HostFunction): xdr.ScVal {
    const args = ((hf as Any).createContract ?? (hf as Any).createContractV2) as Any;
    const preimage = args.contractIdPreimage as xdr.ContractIdPreimage;
    const executable = args.executable as xdr.ContractExecutable;
    const ctorArgs: xdr.ScVal[] = args.constructorArgs ?? [];
    if (preimage.type === "contractIdPreimageFromAsset") {
      const asset = Asset.fromOperation((preimage as Any).fromAsset);
      const id = asset.contractId(this.req.ledger.networkPassphrase);
      this.createInstance(
        id,
        xdr.ContractExecutable.contractExecutableStellarAsset(),
        sacInstanceStorage(asset),
      );
      return addressScVal(id);
    }
    const from = (preimage as Any).fromAddress as xdr.ContractIdPreimageFromAddress;
    const deployer = addressFromScAddress(from.address);
    const salt: Uint8Array = (from.salt as Any).value ?? from.salt;
    const id = contractIdFromAddress(this.networkId, deployer, salt);
    // The deployer authorizes the creation (create_contract host fn auth).
    const authFn = hf.type === "hostFunctionTypeCreateContractV2"
      ? xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractV2HostFn(
        new xdr.CreateContractArgsV2({
          contractIdPreimage: preimage,
          executable,
          constructorArgs: ctorArgs,
        }),
      )
      : xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractHostFn(
        new xdr.CreateContractArgs({ contractIdPreimage: preimage, executable }),
      );
    this.auth.requireCreate(deployer, authFn);
    if (executable.type !== "contractExecutableWasm") {
      throw this.err("Value", "InvalidInput", "unsupported executable");
    }
    const hash: Uint8Array = (executable as Any).wasmHash.value;
    const reg = moduleByHash(toHex(hash));
    const codeKey = contractCodeKey(hash);
    const code = this.read(
      codeKey,
      () => ["trying to access contract code key outside of the footprint", [bytesVal(hash)]],
    );
    if (!code) {
      throw this.err("Storage", "MissingValue", "Wasm does not exist", [bytesVal(hash)]);
    }
    if (!reg) {
      throw this.err(
        "WasmVm",
        "InvalidInput",
        "contract code is not a registered TypeScript module",
        [bytesVal(hash)],
      );
    }
    this.createInstance(id, executable, null);
    if (reg.codec.fns.has("__constructor")) {
      this.callContract(null, id, "__constructor", ctorArgs, "constructor");
    } else if (ctorArgs.length > 0) {
      throw this.err("WasmVm", "MissingValue", "trying to invoke non-existent contract function", [
        sym("__constructor"),
      ]);
    }
    return addressScVal(id);
  }

  /** Writes a new instance entry (errors if the contract exists). */
  createInstance(
    id: string,
    executable: xdr.ContractExecutable,
    storage: xdr.ScMapEntry[] | null,
  ): void {
    const key = instanceLedgerKey(id);
    const what = (): [string, xdr.ScVal[]] => [
      "trying to access contract instance key outside of the footprint",
      [addressScVal(id)],
    ];
    if (this.read(key, what)) {
      throw this.err("Storage", "ExistingValue", "contract already exists", [addressScVal(id)]);
    }
    this.write(
      key,
      instanceEntry(
        scAddressFromString(id),
        new xdr.ScContractInstance({ executable, storage }),
        this.ledgerSeq,
      ),
      what,
    );
  }

  /**
   * Deploys a module in-process: code + instance, then `__constructor` with native args.
   * Authorization is not checked (an in-process deployment acts with everyone's consent).
   */
  deployModule(reg: RegisteredModule, id: string, args: unknown): void {
    this.auth.allowAll = true;
    const codeKey = reg.codeKey;
    if (!this.state.get(codeKey)) {
      this.state.put(codeKey, codeEntry(reg.hash, reg.wasm, this.ledgerSeq));
    }
    this.createInstance(
      id,
      xdr.ContractExecutable.contractExecutableWasm(reg.hash as Any),
      null,
    );
    const ctor = reg.codec.fns.get("__constructor");
    if (ctor) {
      const scArgs = reg.codec.encodeArgs("__constructor", (args ?? []) as Any);
      this.callContract(null, id, "__constructor", scArgs, "constructor");
    }
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

/** The `Env` a contract function sees for one frame. */
class FrameEnv implements Env {
  private _storage?: Env["storage"];

  constructor(private readonly h: Invocation, private readonly f: Frame) {}

  get currentContract(): string {
    return this.f.contract;
  }

  get invoker(): string | undefined {
    return this.f.caller?.contract;
  }

  get ledger(): { readonly sequence: number; readonly timestamp: bigint } {
    return this.h.ledgerView;
  }

  get storage(): Env["storage"] {
    if (!this._storage) {
      const { h, f } = this;
      const data = (d: 0 | 1): Storage => ({
        get: (k) => h.guard(f, () => h.dataGet(f, k, d)),
        has: (k) => h.guard(f, () => h.dataGet(f, k, d) !== undefined),
        set: (k, v) => h.guard(f, () => h.dataPut(f, k, v, d)),
        remove: (k) => h.guard(f, () => h.dataDel(f, k, d)),
        extendTtl: (k, _threshold, extendTo) =>
          h.guard(f, () => h.dataExtend(f, k, d, h.ledgerSeq + extendTo)),
      });
      this._storage = Object.freeze({
        instance: {
          get: (k) => h.instanceGet(f, k),
          has: (k) => h.instanceGet(f, k) !== undefined,
          set: (k, v) => h.instanceSet(f, k, v),
          remove: (k) => h.instanceDel(f, k),
          extendTtl: (_k, _threshold, extendTo) => h.instanceExtend(f, h.ledgerSeq + extendTo),
        },
        persistent: data(1),
        temporary: data(0),
      });
    }
    return this._storage;
  }

  requireAuth(address: string): void {
    this.h.guard(this.f, () => this.h.requireAuth(this.f, address, this.f.args));
  }

  requireAuthForArgs(address: string, args: xdr.ScVal[]): void {
    this.h.guard(this.f, () => this.h.requireAuth(this.f, address, args));
  }

  call<R = unknown>(contract: string, fn: string, args?: unknown[] | Record<string, unknown>): R {
    return this.h.guard(this.f, () => this.h.crossCall(this.f, contract, fn, args, "call")) as R;
  }

  tryCall<R = unknown>(
    contract: string,
    fn: string,
    args?: unknown[] | Record<string, unknown>,
  ): TryCallResult<R> {
    try {
      return { ok: true, value: this.h.crossCall(this.f, contract, fn, args, "try") as R };
    } catch (e) {
      if (e instanceof HostErr && isRecoverable(e)) {
        return { ok: false, error: { type: e.type, code: e.code, message: e.detail ?? e.msg } };
      }
      if (e instanceof HostErr && !this.f.poison) this.f.poison = e;
      throw e;
    }
  }

  emit(topics: xdr.ScVal[], data: xdr.ScVal): void {
    this.h.emit(this.f, topics, data);
  }

  toScVal(value: unknown, type: TypeDef): xdr.ScVal {
    return this.f.callee.codec.conv(type).enc(value);
  }

  fromScVal<R = unknown>(value: xdr.ScVal, type: TypeDef): R {
    return this.f.callee.codec.conv(type).dec(value) as R;
  }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function executableOf(instance: xdr.ScContractInstance): Executable | { missing: Uint8Array } {
  const ex = instance.executable;
  if (ex.type === "contractExecutableStellarAsset") return { kind: "sac", codec: SAC_CODEC };
  if (ex.type !== "contractExecutableWasm") return { missing: new Uint8Array(32) };
  const hash: Uint8Array = (ex as Any).wasmHash.value;
  const reg = moduleByHash(toHex(hash));
  if (!reg) return { missing: hash };
  return { kind: "module", reg, codeKey: reg.codeKey, codec: reg.codec };
}

function contractIdOrNull(c: string): Uint8Array | null {
  try {
    const a = scAddressFromString(c) as Any;
    return a.type === "scAddressTypeContract" ? a.contractId.value : null;
  } catch {
    return null;
  }
}

/** The instance LedgerEntry of a contract. */
export function instanceEntry(
  sca: xdr.ScAddress,
  instance: xdr.ScContractInstance,
  seq: number,
): xdr.LedgerEntry {
  return new xdr.LedgerEntry({
    lastModifiedLedgerSeq: seq,
    data: xdr.LedgerEntryData.contractData(
      new xdr.ContractDataEntry({
        ext: xdr.ExtensionPoint.v0(),
        contract: sca,
        key: xdr.ScVal.scvLedgerKeyContractInstance(),
        durability: xdr.ContractDataDurability.persistent,
        val: xdr.ScVal.scvContractInstance(instance),
      }),
    ),
    ext: xdr.LedgerEntryExt.v0(),
  });
}

/** A contract code LedgerEntry. */
export function codeEntry(hash: Uint8Array, code: Uint8Array, seq: number): xdr.LedgerEntry {
  return new xdr.LedgerEntry({
    lastModifiedLedgerSeq: seq,
    data: xdr.LedgerEntryData.contractCode(
      new xdr.ContractCodeEntry({ ext: xdr.ContractCodeEntryExt.v0(), hash, code }),
    ),
    ext: xdr.LedgerEntryExt.v0(),
  });
}

function bytesVal(b: Uint8Array): xdr.ScVal {
  return xdr.ScVal.scvBytes(b as Any);
}

function isScValLike(v: unknown): boolean {
  return typeof v === "object" && v !== null && (xdr.ScVal as Any).is?.(v) === true;
}

function mapBytes(v: xdr.ScVal, field: string, len: number): Uint8Array | undefined {
  if (v.type !== "scvMap") return undefined;
  for (const e of ((v as Any).map ?? []) as xdr.ScMapEntry[]) {
    if (e.key.type === "scvSymbol" && String((e.key as Any).sym) === field) {
      if (e.val.type !== "scvBytes") return undefined;
      const b: Uint8Array = (e.val as Any).bytes.value;
      return b.length === len ? b : undefined;
    }
  }
  return undefined;
}

/** The SAC's codec (SAC interface as the SDK's `SAC_SPEC`). */
export { SAC_CODEC };
