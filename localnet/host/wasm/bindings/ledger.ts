/**
 * Module `l` (ledger): contract storage of the three durabilities with TTL extension, and
 * deployment (upload, create, update) from inside a contract.
 *
 * @module
 */
import { Asset, xdr } from "@stellar/stellar-sdk";
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr } from "../objects.ts";
import { boolVal, VOID } from "../val.ts";
import {
  calleeExtendTtl,
  dataDel,
  dataExtendTtl,
  dataGet,
  dataPut,
  instanceDel,
  instanceGet,
  instanceSet,
} from "../../contract_data.ts";
import { createInstance, deployCode, uploadWasm } from "../../deploy.ts";
import { contractIdFromAddress, contractIdFromAsset, scAddressFromString } from "../../keys.ts";
import { sacInstanceStorage } from "../../sac.ts";
import { contractCodeKey } from "../../xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const PERSISTENT = 1;
const INSTANCE = 2;

function storageType(c: VmCtx, t: bigint): number {
  // The real host marshals StorageType as a raw i64 0/1/2 (declare_wasmi_marshal_for_enum in
  // soroban-env-common), which is what soroban-sdk and Vigil's contracts pass. The U32Val form is
  // still accepted for this repository's WAT test contracts (the real host would refuse it).
  if (t >= 0n && t <= 2n) return Number(t);
  const n = c.u32(t);
  if (n > 2) throw valErr("Value", "InvalidInput", "invalid storage type");
  return n;
}

function guard<T>(c: VmCtx, f: () => T): T {
  return c.h.guard(c.frame, f);
}

function missing(): never {
  throw valErr(
    "Storage",
    "MissingValue",
    "trying to get non-existing value for contract storage key",
  );
}

function salt32(c: VmCtx, v: bigint): Uint8Array {
  const b = c.bytes(v);
  if (b.length !== 32) throw valErr("Value", "UnexpectedSize", "salt must be 32 bytes");
  return b;
}

function hash32(c: VmCtx, v: bigint): Uint8Array {
  const b = c.bytes(v);
  if (b.length !== 32) throw valErr("Value", "UnexpectedSize", "wasm hash must be 32 bytes");
  return b;
}

/** Extends another contract's instance and/or code TTL. */
function extendOther(
  c: VmCtx,
  a: bigint,
  th: bigint,
  e: bigint,
  instance: boolean,
  code: boolean,
): bigint {
  const callee = c.h.resolve(c.address(a));
  guard(c, () => calleeExtendTtl(c.h, callee, c.u32(th), c.u32(e), instance, code));
  return VOID;
}

function deploy(c: VmCtx, d: bigint, w: bigint, s: bigint, args: xdr.ScVal[], v2: boolean): bigint {
  const deployer = c.address(d);
  const hash = hash32(c, w);
  const salt = salt32(c, s);
  const id = deployCode(
    c.h,
    c.frame,
    deployer,
    Uint8Array.from(hash),
    Uint8Array.from(salt),
    args,
    v2,
  );
  return c.rel(c.store.newAddress(scAddressFromString(id), id));
}

function asset(c: VmCtx, v: bigint): Asset {
  try {
    return Asset.fromOperation(xdr.Asset.fromXdr(c.bytes(v) as Any));
  } catch {
    throw valErr("Value", "InvalidInput", "invalid serialized asset");
  }
}

export const LEDGER: [string, HostFn][] = [
  [
    "_",
    hf("put_contract_data", 3, (c, k, v, t) => {
      const key = c.scval(k);
      const val = c.scval(v);
      const type = storageType(c, t);
      c.charge(10_000);
      if (type === INSTANCE) instanceSet(c.h, c.frame, key, val);
      else guard(c, () => dataPut(c.h, c.frame, key, val, type === PERSISTENT ? 1 : 0));
      return VOID;
    }),
  ],
  [
    "0",
    hf("has_contract_data", 2, (c, k, t) => {
      const key = c.scval(k);
      const type = storageType(c, t);
      if (type === INSTANCE) return boolVal(instanceGet(c.h, c.frame, key) !== undefined);
      return boolVal(
        guard(c, () => dataGet(c.h, c.frame, key, type === PERSISTENT ? 1 : 0)) !== undefined,
      );
    }),
  ],
  [
    "1",
    hf("get_contract_data", 2, (c, k, t) => {
      const key = c.scval(k);
      const type = storageType(c, t);
      c.charge(10_000);
      const v = type === INSTANCE
        ? instanceGet(c.h, c.frame, key)
        : guard(c, () => dataGet(c.h, c.frame, key, type === PERSISTENT ? 1 : 0));
      if (v === undefined) missing();
      return c.fromScVal(v!);
    }),
  ],
  [
    "2",
    hf("del_contract_data", 2, (c, k, t) => {
      const key = c.scval(k);
      const type = storageType(c, t);
      if (type === INSTANCE) instanceDel(c.h, c.frame, key);
      else guard(c, () => dataDel(c.h, c.frame, key, type === PERSISTENT ? 1 : 0));
      return VOID;
    }),
  ],
  [
    "3",
    hf("create_contract", 3, (c, d, w, s) => deploy(c, d, w, s, [], false)),
  ],
  [
    "4",
    hf("create_asset_contract", 1, (c, a) => {
      const as = asset(c, a);
      const id = as.contractId(c.h.req.ledger.networkPassphrase);
      createInstance(
        c.h,
        id,
        xdr.ContractExecutable.contractExecutableStellarAsset(),
        sacInstanceStorage(as),
      );
      return c.rel(c.store.newAddress(scAddressFromString(id), id));
    }),
  ],
  [
    "5",
    hf("upload_wasm", 1, (c, w) => {
      const wasm = Uint8Array.from(c.bytes(w));
      c.charge(wasm.length * 50);
      return c.fromScVal(uploadWasm(c.h, wasm));
    }),
  ],
  [
    "6",
    hf("update_current_contract_wasm", 1, (c, w) => {
      const hash = Uint8Array.from(hash32(c, w));
      const code = c.h.read(contractCodeKey(hash), () => [
        "trying to access contract code key outside of the footprint",
        [],
      ]);
      if (!code) throw valErr("Storage", "MissingValue", "Wasm does not exist");
      c.frame.newExecutable = xdr.ContractExecutable.contractExecutableWasm(hash as Any);
      return VOID;
    }),
  ],
  [
    "7",
    hf("extend_contract_data_ttl", 4, (c, k, t, th, e) => {
      const key = c.scval(k);
      const type = storageType(c, t);
      if (type === INSTANCE) {
        throw valErr(
          "Storage",
          "InvalidAction",
          "instance storage should be extended via extend_current_contract_instance_and_code_ttl",
        );
      }
      const durability = type === PERSISTENT ? 1 : 0;
      guard(c, () => dataExtendTtl(c.h, c.frame, key, durability, c.u32(th), c.u32(e)));
      return VOID;
    }),
  ],
  [
    "8",
    hf("extend_current_contract_instance_and_code_ttl", 2, (c, th, e) => {
      guard(c, () => calleeExtendTtl(c.h, c.frame.callee, c.u32(th), c.u32(e), true, true));
      return VOID;
    }),
  ],
  [
    "9",
    hf(
      "extend_contract_instance_and_code_ttl",
      3,
      (c, a, th, e) => extendOther(c, a, th, e, true, true),
    ),
  ],
  [
    "a",
    hf("get_contract_id", 2, (c, d, s) => {
      const id = contractIdFromAddress(c.h.networkId, c.address(d), Uint8Array.from(salt32(c, s)));
      return c.rel(c.store.newAddress(scAddressFromString(id), id));
    }),
  ],
  [
    "b",
    hf("get_asset_contract_id", 1, (c, a) => {
      const xa = xdr.Asset.fromXdr(Uint8Array.from(c.bytes(a)) as Any);
      asset(c, a);
      const id = contractIdFromAsset(c.h.networkId, xa);
      return c.rel(c.store.newAddress(scAddressFromString(id), id));
    }),
  ],
  [
    "c",
    hf(
      "extend_contract_instance_ttl",
      3,
      (c, a, th, e) => extendOther(c, a, th, e, true, false),
      21,
    ),
  ],
  [
    "d",
    hf("extend_contract_code_ttl", 3, (c, a, th, e) => extendOther(c, a, th, e, false, true), 21),
  ],
  [
    "e",
    hf(
      "create_contract_with_constructor",
      4,
      (c, d, w, s, a) => deploy(c, d, w, s, c.vec(a).map((v) => c.store.toScVal(v)), true),
      22,
    ),
  ],
];
