/**
 * Addresses, contract ids and ledger keys, with caches (strkey encoding is slow in the SDK and
 * the same few addresses recur on every call).
 *
 * @module
 */
import { Address, hash, StrKey, xdr } from "@stellar/stellar-sdk";
import { accountKey, contractDataKey } from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const scAddrCache = new Map<string, xdr.ScAddress>();
const strCache = new WeakMap<xdr.ScAddress, string>();

/** ScAddress of a "G…"/"C…"/"M…" strkey (cached). Throws on an invalid address. */
export function scAddressFromString(s: string): xdr.ScAddress {
  let a = scAddrCache.get(s);
  if (a === undefined) {
    a = Address.fromString(s).toScAddress() as xdr.ScAddress;
    if (scAddrCache.size > 100_000) scAddrCache.clear();
    scAddrCache.set(s, a);
    strCache.set(a, s);
  }
  return a;
}

/** Strkey of an ScAddress (cached per object). */
export function addressFromScAddress(a: xdr.ScAddress): string {
  let s = strCache.get(a);
  if (s === undefined) {
    switch (a.type) {
      case "scAddressTypeAccount":
        s = StrKey.encodeEd25519PublicKey((a as Any).accountId.ed25519.value);
        break;
      case "scAddressTypeContract":
        s = StrKey.encodeContract((a as Any).contractId.value);
        break;
      default:
        s = Address.fromScAddress(a as Any).toString();
    }
    strCache.set(a, s);
  }
  return s;
}

/** Raw 32-byte ed25519 key of a G address. */
export function accountBytes(g: string): Uint8Array {
  return (scAddressFromString(g) as Any).accountId.ed25519.value;
}

/** Raw 32-byte id of a C address. */
export function contractBytes(c: string): Uint8Array {
  return (scAddressFromString(c) as Any).contractId.value;
}

/** Base64 LedgerKey of a G account. */
export function accountLedgerKey(g: string): string {
  return accountKey(accountBytes(g));
}

const instanceKeyCache = new Map<string, string>();
const INSTANCE_SCV = xdr.ScVal.scvLedgerKeyContractInstance();

/** Base64 LedgerKey of a contract's instance entry. */
export function instanceLedgerKey(c: string): string {
  let k = instanceKeyCache.get(c);
  if (k === undefined) {
    k = contractDataKey(scAddressFromString(c), INSTANCE_SCV, 1);
    if (instanceKeyCache.size > 100_000) instanceKeyCache.clear();
    instanceKeyCache.set(c, k);
  }
  return k;
}

/** The ScVal key of a contract instance entry. */
export const INSTANCE_KEY_SCVAL = INSTANCE_SCV;

/** Contract id (C…) of a Wasm contract deployed by `deployer` with `salt`, as on the real network. */
export function contractIdFromAddress(
  networkId: Uint8Array,
  deployer: string,
  salt: Uint8Array,
): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId,
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({ address: scAddressFromString(deployer), salt }),
      ),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXdr() as Any));
}

/** Contract id (C…) of the Stellar Asset Contract of an XDR asset. */
export function contractIdFromAsset(networkId: Uint8Array, asset: xdr.Asset): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId,
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAsset(asset),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXdr() as Any));
}
