/**
 * Soroban authorization, ported from rs-soroban-env `auth.rs`: per-address trackers that
 * match `require_auth` calls against authorized invocation trees (enforcing mode), or record
 * the trees as they happen (recording modes), plus the invoker-contract rule.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { createHash } from "node:crypto";
import type { AuthMode } from "./types.ts";
import { addressFromScAddress, scAddressFromString } from "./keys.ts";
import { addressScVal } from "./codec.ts";
import { scvToken } from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A function that can be authorized: a contract call, or a create-contract host function. */
export type AuthFn =
  | { kind: "contract"; contract: string; fn: string; args: xdr.ScVal[]; token: string }
  | { kind: "create"; fn: xdr.SorobanAuthorizedFunction; token: string };

/** Builds a contract-call AuthFn (the token makes equality a string compare). */
export function contractAuthFn(contract: string, fn: string, args: xdr.ScVal[]): AuthFn {
  let token = `${contract}\u0000${fn}\u0000${args.length}`;
  for (const a of args) token += "\u0000" + scvToken(a);
  return { kind: "contract", contract, fn, args, token };
}

function authFnFromXdr(f: xdr.SorobanAuthorizedFunction): AuthFn {
  if (f.type === "sorobanAuthorizedFunctionTypeContractFn") {
    const c = (f as Any).contractFn as xdr.InvokeContractArgs;
    return contractAuthFn(
      addressFromScAddress(c.contractAddress),
      String(c.functionName),
      c.args,
    );
  }
  return { kind: "create", fn: f, token: "create\u0000" + f.toXdr("base64") };
}

function authFnToXdr(f: AuthFn): xdr.SorobanAuthorizedFunction {
  if (f.kind === "create") return f.fn;
  return xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
    new xdr.InvokeContractArgs({
      contractAddress: scAddressFromString(f.contract),
      functionName: f.fn,
      args: f.args,
    }),
  );
}

/** A node of an authorized invocation tree. */
interface AuthNode {
  fn: AuthFn;
  subs: AuthNode[];
  exhausted: boolean;
}

interface NodeSnapshot {
  exhausted: boolean;
  subs: NodeSnapshot[];
}

function nodeFromXdr(inv: xdr.SorobanAuthorizedInvocation): AuthNode {
  return {
    fn: authFnFromXdr(inv.function),
    subs: inv.subInvocations.map(nodeFromXdr),
    exhausted: false,
  };
}

function nodeToXdr(n: AuthNode): xdr.SorobanAuthorizedInvocation {
  return new xdr.SorobanAuthorizedInvocation({
    function: authFnToXdr(n.fn),
    subInvocations: n.subs.map(nodeToXdr),
  });
}

function snapshotNode(n: AuthNode): NodeSnapshot {
  return { exhausted: n.exhausted, subs: n.subs.map(snapshotNode) };
}

function rollbackNode(n: AuthNode, s: NodeSnapshot): void {
  n.exhausted = s.exhausted;
  // Recording mode appends sub-invocations; drop the ones added after the snapshot.
  if (n.subs.length > s.subs.length) n.subs.length = s.subs.length;
  n.subs.forEach((sub, i) => rollbackNode(sub, s.subs[i]));
}

/** Matches the sparse authorized tree against the actual call stack (`InvocationTracker`). */
class InvocationTracker {
  /** Per call-stack frame: index of the matched node in its parent's subs (0 for root), or null. */
  stack: (number | null)[] = [];
  rootExhaustedFrame: number | null = null;
  fullyProcessed = false;

  constructor(readonly root: AuthNode) {}

  lastAuthorized(): AuthNode | null {
    let node: AuthNode | null = null;
    for (const id of this.stack) {
      if (id === null) continue;
      node = node === null ? this.root : node.subs[id];
    }
    return node;
  }

  pushFrame(): void {
    this.stack.push(null);
  }

  popFrame(): void {
    this.stack.pop();
    if (this.rootExhaustedFrame !== null && this.rootExhaustedFrame >= this.stack.length) {
      this.fullyProcessed = true;
    }
  }

  isActive(): boolean {
    return this.root.exhausted && !this.fullyProcessed;
  }

  currentFrameMatched(): boolean {
    const last = this.stack[this.stack.length - 1];
    return last !== null && last !== undefined;
  }

  hasMatchedInStack(): boolean {
    return this.stack.some((i) => i !== null);
  }

  maybePushMatching(fn: AuthFn, allowRoot: boolean): boolean {
    if (this.currentFrameMatched()) return false;
    let index: number | null = null;
    const cur = this.lastAuthorized();
    if (cur !== null) {
      for (let i = 0; i < cur.subs.length; i++) {
        const s = cur.subs[i];
        if (!s.exhausted && s.fn.token === fn.token) {
          index = i;
          s.exhausted = true;
          break;
        }
      }
    } else if (!this.root.exhausted && allowRoot && this.root.fn.token === fn.token) {
      index = 0;
      this.root.exhausted = true;
      this.rootExhaustedFrame = this.stack.length - 1;
    }
    if (index !== null) this.stack[this.stack.length - 1] = index;
    return index !== null;
  }

  record(fn: AuthFn): boolean {
    if (this.currentFrameMatched()) return false;
    const cur = this.lastAuthorized();
    if (cur === null) return false;
    cur.subs.push({ fn, subs: [], exhausted: true });
    this.stack[this.stack.length - 1] = cur.subs.length - 1;
    return true;
  }

  rollback(s: NodeSnapshot): void {
    rollbackNode(this.root, s);
    if (!this.root.exhausted) {
      this.rootExhaustedFrame = null;
      this.fullyProcessed = false;
    }
  }
}

/** Everything the auth manager needs from the running host. */
export interface AuthHost {
  /** The op source account (G…). */
  readonly source: string;
  readonly ledgerSeq: number;
  /** ledgerSeq + maxEntryTtl − 1. */
  readonly maxLiveUntil: number;
  readonly networkId: Uint8Array;
  /** Creates a host error and records its diagnostic event. */
  err(type: string, code: number | string, msg: string, args?: xdr.ScVal[]): Error;
  /** Whether an error is a contract error (to be converted to an auth error). */
  isContractError(e: unknown): boolean;
  /** Error value of a host error (for diagnostics). */
  errorValue(e: unknown): xdr.ScVal;
  /** Verifies address credentials (G: ed25519 signatures; C: `__check_auth`). */
  authenticate(
    address: string,
    payload: Uint8Array,
    signature: xdr.ScVal,
    root: xdr.SorobanAuthorizedInvocation,
  ): void;
  /** Consumes a nonce (temporary contract data under the address); errors if it exists. */
  consumeNonce(address: string, nonce: bigint, liveUntil: number): void;
  /** Loads a G account (footprint read) for recording-mode emulation. */
  loadAccount(address: string): void;
  /** A random non-negative i64 nonce. */
  randomNonce(): bigint;
}

/** An account's authorization tracker (`AccountAuthorizationTracker`). */
class AccountTracker {
  valid = true;
  authenticated: boolean;
  needNonce: boolean;

  constructor(
    readonly address: string,
    readonly it: InvocationTracker,
    readonly signature: xdr.ScVal,
    readonly isInvoker: boolean,
    readonly nonce: [bigint, number] | null,
    /** The submitted root invocation (enforcing mode), for the signature payload. */
    readonly rootXdr: xdr.SorobanAuthorizedInvocation | null,
    recording: boolean,
  ) {
    this.authenticated = recording;
    this.needNonce = !recording && !isInvoker;
  }

  isActive(): boolean {
    return this.valid && this.it.isActive();
  }
}

interface TrackerSnapshot {
  node: NodeSnapshot;
  stack: (number | null)[];
  rootExhaustedFrame: number | null;
  fullyProcessed: boolean;
  authenticated: boolean;
  needNonce: boolean;
}

/** Snapshot for rolling back a failed frame. */
export interface AuthSnapshot {
  trackers: TrackerSnapshot[];
  count: number;
}

/** Per-invocation authorization manager. */
export class AuthManager {
  private readonly trackers: AccountTracker[] = [];
  /** In-process deployments: every `require_auth` passes, nothing is recorded. */
  allowAll = false;
  /** Auth call stack: contract frames and create-contract host function frames. */
  private readonly stack: { contract: string; fn: string }[] = [];
  /**
   * Invoker-contract authorizations (`authorize_as_curr_contract`): trees a contract authorized
   * for calls deeper than its direct ones, valid while the frame that added them is running.
   */
  private invokerTrackers: { address: string; depth: number; it: InvocationTracker }[] = [];

  constructor(private readonly host: AuthHost, readonly mode: AuthMode) {}

  /** Enforcing mode: one tracker per submitted entry (may raise for unsupported credentials). */
  load(entries: xdr.SorobanAuthorizationEntry[]): void {
    if (this.mode !== "enforce") return;
    const host = this.host;
    for (const entry of entries) {
      const c = entry.credentials;
      const it = new InvocationTracker(nodeFromXdr(entry.rootInvocation));
      if (c.type === "sorobanCredentialsSourceAccount") {
        this.trackers.push(
          new AccountTracker(host.source, it, xdr.ScVal.scvVoid(), true, null, null, false),
        );
      } else if (c.type === "sorobanCredentialsAddress") {
        const a = (c as Any).address as xdr.SorobanAddressCredentials;
        this.trackers.push(
          new AccountTracker(
            addressFromScAddress(a.address),
            it,
            a.signature,
            false,
            [BigInt(a.nonce), a.signatureExpirationLedger],
            entry.rootInvocation,
            false,
          ),
        );
      } else {
        throw host.err("Auth", "InvalidInput", "unsupported authorization credentials type");
      }
    }
  }

  /** Call when a contract frame is pushed (take the snapshot for rollback first). */
  pushFrame(contract: string, fn: string): void {
    this.stack.push({ contract, fn });
    for (const t of this.trackers) t.it.pushFrame();
    for (const t of this.invokerTrackers) t.it.pushFrame();
  }

  /** `authorize_as_curr_contract`: `address` (the current contract) authorizes these trees. */
  addInvokerAuth(address: string, roots: xdr.SorobanAuthorizedInvocation[]): void {
    const depth = this.stack.length;
    for (const r of roots) {
      const it = new InvocationTracker(nodeFromXdr(r));
      it.stack = new Array(depth).fill(null);
      this.invokerTrackers.push({ address, depth, it });
    }
  }

  /** Call when a contract frame is popped. */
  popFrame(): void {
    this.stack.pop();
    for (const t of this.trackers) t.it.popFrame();
    for (const t of this.invokerTrackers) t.it.popFrame();
    if (this.invokerTrackers.length > 0) {
      this.invokerTrackers = this.invokerTrackers.filter((t) => t.depth <= this.stack.length);
    }
  }

  /** `require_auth` of the deployer for a create-contract host function (its own auth frame). */
  requireCreate(address: string, fn: xdr.SorobanAuthorizedFunction): void {
    this.pushFrame("", "__create_contract");
    try {
      this.requireAuth(address, { kind: "create", fn, token: "create\u0000" + fn.toXdr("base64") });
    } finally {
      this.popFrame();
    }
  }

  snapshot(): AuthSnapshot {
    return {
      count: this.trackers.length,
      trackers: this.trackers.map((t) => ({
        node: snapshotNode(t.it.root),
        stack: t.it.stack.slice(),
        rootExhaustedFrame: t.it.rootExhaustedFrame,
        fullyProcessed: t.it.fullyProcessed,
        authenticated: t.authenticated,
        needNonce: t.needNonce,
      })),
    };
  }

  /**
   * Restores a snapshot taken before a frame was pushed; call after that frame was popped.
   * Enforcing mode restores the mutable match state only; recording mode restores the whole
   * trackers (created lazily, so later ones are dropped), as rs-soroban-env does.
   */
  rollback(s: AuthSnapshot): void {
    this.trackers.length = s.count;
    this.trackers.forEach((t, i) => {
      const ts = s.trackers[i];
      t.it.rollback(ts.node);
      if (this.mode !== "enforce") {
        t.it.stack = ts.stack.slice();
        t.it.rootExhaustedFrame = ts.rootExhaustedFrame;
        t.it.fullyProcessed = ts.fullyProcessed;
      }
      t.authenticated = ts.authenticated;
      t.needNonce = ts.needNonce;
    });
  }

  /** `require_auth(address)` for `fn` (the current frame's contract and function). */
  requireAuth(address: string, fn: AuthFn): void {
    if (this.allowAll || this.invokerAuthorizes(address)) return;
    for (const t of this.invokerTrackers) {
      if (t.address === address && t.it.maybePushMatching(fn, true)) return;
    }
    if (this.mode === "enforce") this.requireEnforcing(address, fn);
    else this.requireRecording(address, fn);
  }

  /** The invoker rule: a contract authorizes the calls it makes directly. */
  private invokerAuthorizes(address: string): boolean {
    const st = this.stack;
    return st.length >= 2 && st[st.length - 2].contract === address;
  }

  private requireEnforcing(address: string, fn: AuthFn): void {
    let hasActive = false;
    for (const t of this.trackers) {
      if (t.address === address && t.isActive() && !t.it.currentFrameMatched()) {
        hasActive = true;
        break;
      }
    }
    for (const t of this.trackers) {
      if (t.address !== address || !t.valid) continue;
      if (!t.it.maybePushMatching(fn, !hasActive)) continue;
      if (!t.authenticated) {
        try {
          this.authenticate(t);
          this.verifyAndConsumeNonce(t);
        } catch (e) {
          t.valid = false;
          throw e;
        }
        t.authenticated = true;
      }
      return;
    }
    throw this.host.err("Auth", "InvalidAction", "Unauthorized function call for address", [
      addressScVal(address),
    ]);
  }

  private authenticate(t: AccountTracker): void {
    if (t.isInvoker) return;
    const [nonce, expiration] = t.nonce!;
    const preimage = xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
      new xdr.HashIdPreimageSorobanAuthorization({
        networkId: this.host.networkId,
        nonce,
        signatureExpirationLedger: expiration,
        invocation: t.rootXdr!,
      }),
    );
    const payload = sha256(preimage.toXdr() as Uint8Array);
    try {
      this.host.authenticate(t.address, payload, t.signature, t.rootXdr!);
    } catch (e) {
      // Contract errors from authentication become auth errors, so they can't be mistaken
      // for errors of the contract that called require_auth.
      if (this.host.isContractError(e)) {
        throw this.host.err("Auth", "InvalidAction", "failed account authentication with error", [
          addressScVal(t.address),
          this.host.errorValue(e),
        ]);
      }
      throw e;
    }
  }

  private verifyAndConsumeNonce(t: AccountTracker): void {
    if (!t.needNonce) return;
    t.needNonce = false;
    const [nonce, liveUntil] = t.nonce!;
    const seq = this.host.ledgerSeq;
    if (seq > liveUntil) {
      throw this.host.err("Auth", "InvalidInput", "signature has expired", [
        addressScVal(t.address),
        xdr.ScVal.scvU32(seq),
        xdr.ScVal.scvU32(liveUntil),
      ]);
    }
    if (liveUntil > this.host.maxLiveUntil) {
      throw this.host.err("Auth", "InvalidInput", "signature expiration is too late", [
        addressScVal(t.address),
        xdr.ScVal.scvU32(this.host.maxLiveUntil),
        xdr.ScVal.scvU32(liveUntil),
      ]);
    }
    this.host.consumeNonce(t.address, nonce, liveUntil);
  }

  private requireRecording(address: string, fn: AuthFn): void {
    for (const t of this.trackers) {
      if (t.address !== address) continue;
      if (t.it.hasMatchedInStack() && !t.it.currentFrameMatched()) {
        t.it.record(fn);
        return;
      }
    }
    if (this.mode === "record" && this.stack.length !== 1) {
      throw this.host.err(
        "Auth",
        "InvalidAction",
        "[recording authorization only] encountered authorization not tied to the root contract invocation for an address. Use `require_auth()` in the top invocation or enable non-root authorization.",
        [addressScVal(address)],
      );
    }
    const isInvoker = address === this.host.source;
    let nonce: [bigint, number] | null = null;
    if (!isInvoker) {
      const n = this.host.randomNonce();
      this.host.consumeNonce(address, n, 0);
      nonce = [n, 0];
    }
    const it = new InvocationTracker({ fn, subs: [], exhausted: true });
    const depth = this.stack.length;
    it.stack = new Array(depth - 1).fill(null);
    it.stack.push(0);
    it.rootExhaustedFrame = depth - 1;
    this.trackers.push(
      new AccountTracker(address, it, xdr.ScVal.scvVoid(), isInvoker, nonce, null, true),
    );
  }

  /** Recording mode: loads the accounts of G authorizers, as the real host emulates authentication. */
  emulateAuthentication(): void {
    if (this.mode === "enforce") return;
    for (const t of this.trackers) {
      if (!t.isInvoker && t.address.startsWith("G")) this.host.loadAccount(t.address);
    }
  }

  /** Recorded authorization entries (recording modes): one per tracker. */
  recordedEntries(): xdr.SorobanAuthorizationEntry[] {
    return this.trackers.map((t) => {
      const credentials = t.isInvoker
        ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
        : xdr.SorobanCredentials.sorobanCredentialsAddress(
          new xdr.SorobanAddressCredentials({
            address: scAddressFromString(t.address),
            nonce: t.nonce![0],
            signatureExpirationLedger: 0,
            signature: xdr.ScVal.scvVoid(),
          }),
        );
      return new xdr.SorobanAuthorizationEntry({
        credentials,
        rootInvocation: nodeToXdr(t.it.root),
      });
    });
  }

  /** Number of address (non-invoker) trackers, for resource estimates. */
  get signatureCount(): number {
    return this.trackers.filter((t) => !t.isInvoker).length;
  }
}

/** SHA-256 of bytes. */
export function sha256(b: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(b).digest());
}
