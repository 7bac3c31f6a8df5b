/**
 * The host side of authorization: authenticating address credentials (ed25519 account
 * signatures against signer weights, `__check_auth` of custom accounts), nonces and the
 * `require_auth` of a frame.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { verifyEd25519 } from "../sig.ts";
import type { Invocation } from "./host.ts";
import type { Frame } from "./frame.ts";
import { contractAuthFn } from "./auth.ts";
import { addressScVal } from "./codec.ts";
import { accountBytes, scAddressFromString } from "./keys.ts";
import { accountKey, cmpBytes, contractDataKey } from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const VOID = xdr.ScVal.scvVoid();

function sym(s: string): xdr.ScVal {
  return xdr.ScVal.scvSymbol(s);
}

function bytesVal(b: Uint8Array): xdr.ScVal {
  return xdr.ScVal.scvBytes(b as Any);
}

export function requireAuth(h: Invocation, frame: Frame, address: string, args: xdr.ScVal[]): void {
  h.auth.requireAuth(address, contractAuthFn(frame.contract, frame.fn, args));
}

export function loadAccount(h: Invocation, address: string): void {
  const e = h.read(accountKey(accountBytes(address)), () => [
    "trying to access account outside of the footprint",
    [addressScVal(address)],
  ]);
  if (!e) {
    throw h.err("Storage", "MissingValue", "trying to get non-existing value for account", [
      addressScVal(address),
    ]);
  }
}

export function consumeNonce(
  h: Invocation,
  address: string,
  nonce: bigint,
  liveUntil: number,
): void {
  const sca = scAddressFromString(address);
  const key = xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce }));
  const lk = contractDataKey(sca, key, 0);
  const outside = (): [string, xdr.ScVal[]] => [
    "trying to access nonce outside of footprint for address",
    [addressScVal(address)],
  ];
  if (h.read(lk, outside)) {
    throw h.err("Auth", "ExistingValue", "nonce already exists for address", [
      addressScVal(address),
    ]);
  }
  const entry = new xdr.LedgerEntry({
    lastModifiedLedgerSeq: h.ledgerSeq,
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
  h.write(lk, entry, outside);
  const minTemp = h.ledgerSeq + (h.req.ledger.minTempTtl ?? 16) - 1;
  h.requestLiveUntil(lk, Math.max(liveUntil, minTemp));
}

export function authenticate(
  h: Invocation,
  address: string,
  payload: Uint8Array,
  signature: xdr.ScVal,
  root: xdr.SorobanAuthorizedInvocation,
): void {
  if (address.startsWith("C")) {
    checkContractAuth(h, address, payload, signature, root);
    return;
  }
  h.sigChecks++;
  const contractErr = (msg: string, args: xdr.ScVal[] = []) => h.err("Contract", 5, msg, args);
  if (signature.type !== "scvVec") {
    throw h.err("Value", "UnexpectedType", "account signature is not a vector of signatures");
  }
  const sigs = ((signature as Any).vec ?? []) as xdr.ScVal[];
  if (sigs.length > 20) {
    throw contractErr("too many account signers", [xdr.ScVal.scvU32(sigs.length)]);
  }
  if (sigs.length === 0) throw contractErr("no account signatures found");
  const acctEntry = h.read(accountKey(accountBytes(address)), () => [
    "trying to access account outside of the footprint",
    [addressScVal(address)],
  ]);
  if (!acctEntry) {
    throw h.err("Storage", "MissingValue", "trying to get non-existing value for account", [
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
      throw h.err(
        "Value",
        "UnexpectedType",
        "account signature entry is not {public_key, signature}",
      );
    }
    if (prev && cmpBytes(prev, pk) >= 0) {
      throw contractErr("public keys are not ordered", [bytesVal(prev), bytesVal(pk)]);
    }
    if (!verifyEd25519(pk, payload, sig)) {
      throw h.err("Crypto", "InvalidInput", "failed ED25519 verification");
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
export function checkContractAuth(
  h: Invocation,
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
  h.callContract(
    h.frames[h.frames.length - 1] ?? null,
    address,
    "__check_auth",
    [xdr.ScVal.scvBytes(payload as Any), signature, xdr.ScVal.scvVec(contexts)],
    "check_auth",
  );
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
