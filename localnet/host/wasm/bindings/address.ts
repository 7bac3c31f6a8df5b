/**
 * Module `a` (address): `require_auth[_for_args]`, `authorize_as_curr_contract`, strkey
 * conversions and (protocol 23) muxed addresses and address executables.
 *
 * @module
 */
import { StrKey, xdr } from "@stellar/stellar-sdk";
import { hf, type HostFn, type VmCtx } from "../ctx.ts";
import { valErr } from "../objects.ts";
import { Tag, tagOf, VOID } from "../val.ts";
import { requireAuth } from "../../account_auth.ts";
import { accountKey } from "../../xdr_fast.ts";
import { accountBytes, scAddressFromString } from "../../keys.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function field(m: xdr.ScVal, name: string): xdr.ScVal {
  for (const e of ((m as Any).map ?? []) as xdr.ScMapEntry[]) {
    const k = e.key as Any;
    if (k.type === "scvSymbol" && new TextDecoder().decode(k.sym.bytes ?? k.sym) === name) {
      return e.val;
    }
  }
  throw valErr("Auth", "InvalidInput", `invoker auth entry is missing ${name}`);
}

function symName(v: xdr.ScVal): string {
  const s = (v as Any).sym;
  return new TextDecoder().decode(s?.bytes ?? s);
}

/** An `InvokerContractAuthEntry` contract value → SorobanAuthorizedInvocation. */
function invokerEntry(c: VmCtx, v: xdr.ScVal): xdr.SorobanAuthorizedInvocation {
  const items = (v as Any).vec as xdr.ScVal[] | null;
  if (v.type !== "scvVec" || !items || items.length !== 2 || items[0].type !== "scvSymbol") {
    throw valErr("Auth", "InvalidInput", "invalid invoker contract auth entry");
  }
  const tag = symName(items[0]);
  const body = items[1];
  if (tag === "Contract") {
    const ctx = field(body, "context");
    const subs = ((field(body, "sub_invocations") as Any).vec ?? []) as xdr.ScVal[];
    return new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({
          contractAddress: (field(ctx, "contract") as Any).address,
          functionName: symName(field(ctx, "fn_name")) as Any,
          args: ((field(ctx, "args") as Any).vec ?? []) as xdr.ScVal[],
        }),
      ),
      subInvocations: subs.map((s) => invokerEntry(c, s)),
    });
  }
  if (tag === "CreateContractHostFn" || tag === "CreateContractWithCtorHostFn") {
    const exe = (field(body, "executable") as Any).vec as xdr.ScVal[];
    const hash = (exe?.[1] as Any)?.bytes?.value ?? (exe?.[1] as Any)?.bytes;
    const salt = (field(body, "salt") as Any).bytes;
    const preimage = xdr.ContractIdPreimage.contractIdPreimageFromAddress(
      new xdr.ContractIdPreimageFromAddress({
        address: c.frame.callee.scAddress,
        salt: (salt?.value ?? salt) as Any,
      }),
    );
    const executable = xdr.ContractExecutable.contractExecutableWasm(hash as Any);
    const fn = tag === "CreateContractHostFn"
      ? xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractHostFn(
        new xdr.CreateContractArgs({ contractIdPreimage: preimage, executable }),
      )
      : xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractV2HostFn(
        new xdr.CreateContractArgsV2({
          contractIdPreimage: preimage,
          executable,
          constructorArgs: ((field(body, "constructor_args") as Any).vec ?? []) as xdr.ScVal[],
        }),
      );
    return new xdr.SorobanAuthorizedInvocation({ function: fn, subInvocations: [] });
  }
  throw valErr("Auth", "InvalidInput", `unknown invoker contract auth entry ${tag}`);
}

function muxed(c: VmCtx, v: bigint): xdr.ScAddress {
  const t = tagOf(v);
  if (t === Tag.AddressObject) return c.store.address(c.abs(v));
  if (t !== Tag.MuxedAddressObject) throw valErr("Value", "UnexpectedType", "expected an address");
  return (c.store.get(c.abs(v), Tag.MuxedAddressObject) as { a: xdr.ScAddress }).a;
}

export const ADDRESS: [string, HostFn][] = [
  [
    "_",
    hf("require_auth_for_args", 2, (c, a, v) => {
      const addr = c.address(a);
      const args = c.vec(v).map((x) => c.store.toScVal(x));
      c.charge(50_000);
      c.h.guard(c.frame, () => requireAuth(c.h, c.frame, addr, args));
      return VOID;
    }),
  ],
  [
    "0",
    hf("require_auth", 1, (c, a) => {
      const addr = c.address(a);
      c.charge(50_000);
      c.h.guard(c.frame, () => requireAuth(c.h, c.frame, addr, c.frame.args));
      return VOID;
    }),
  ],
  [
    "1",
    hf("strkey_to_address", 1, (c, s) => {
      const t = tagOf(s);
      let b: Uint8Array;
      if (t === Tag.BytesObject) b = c.bytes(s);
      else if (t === Tag.StringObject) b = c.store.bytes(c.abs(s), Tag.StringObject);
      else throw valErr("Value", "UnexpectedType", "strkey must be Bytes or String");
      const str = new TextDecoder().decode(b);
      if (!StrKey.isValidEd25519PublicKey(str) && !StrKey.isValidContract(str)) {
        throw valErr("Value", "InvalidInput", "invalid strkey (expected G... or C...)");
      }
      return c.rel(c.store.newAddress(scAddressFromString(str), str));
    }),
  ],
  [
    "2",
    hf("address_to_strkey", 1, (c, a) => c.newBytes(new TextEncoder().encode(c.address(a)), 73)),
  ],
  [
    "3",
    hf("authorize_as_curr_contract", 1, (c, v) => {
      const entries = c.vec(v).map((x) => invokerEntry(c, c.store.toScVal(x)));
      c.h.auth.addInvokerAuth(c.frame.contract, entries);
      return VOID;
    }),
  ],
  [
    "4",
    hf("get_address_from_muxed_address", 1, (c, m) => {
      const a = muxed(c, m) as Any;
      if (a.type !== "scAddressTypeMuxedAccount") return c.rel(c.abs(m));
      const g = StrKey.encodeEd25519PublicKey(
        a.muxedAccount.ed25519.value ?? a.muxedAccount.ed25519,
      );
      return c.rel(c.store.newAddress(scAddressFromString(g), g));
    }, 23),
  ],
  [
    "5",
    hf("get_id_from_muxed_address", 1, (c, m) => {
      const a = muxed(c, m) as Any;
      if (a.type !== "scAddressTypeMuxedAccount") {
        throw valErr("Value", "UnexpectedType", "not a muxed address");
      }
      return c.rel(c.store.num(64, BigInt(a.muxedAccount.id)));
    }, 23),
  ],
  [
    "6",
    hf("get_address_executable", 1, (c, a) => {
      const addr = c.address(a);
      const sym = (s: string) => xdr.ScVal.scvSymbol(s);
      if (addr.startsWith("G")) {
        const e = c.h.read(accountKey(accountBytes(addr)), () => [
          "trying to access account outside of the footprint",
          [],
        ]);
        return e ? c.fromScVal(xdr.ScVal.scvVec([sym("Account")])) : VOID;
      }
      let callee;
      try {
        callee = c.h.resolve(addr);
      } catch {
        return VOID;
      }
      if (callee.kind === "sac") return c.fromScVal(xdr.ScVal.scvVec([sym("StellarAsset")]));
      const hash: Uint8Array = (callee.instance.executable as Any).wasmHash.value;
      return c.fromScVal(xdr.ScVal.scvVec([sym("Wasm"), xdr.ScVal.scvBytes(hash as Any)]));
    }, 23),
  ],
];
