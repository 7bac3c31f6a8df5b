/**
 * Contract storage for a frame: persistent/temporary contract data (one ledger entry per key,
 * footprint-checked, TTL extension requests) and instance storage (a map inside the instance
 * entry, written back when the frame succeeds).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { Invocation } from "./host.ts";
import type { Frame } from "./frame.ts";
import { addressScVal } from "./codec.ts";
import { compareScVal, contractDataKey, scvToken } from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

export function dataGet(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  durability: 0 | 1,
): xdr.ScVal | undefined {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const e = h.read(
    lk,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
  return e ? (e.data as Any).contractData.val : undefined;
}

export function dataPut(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  val: xdr.ScVal,
  durability: 0 | 1,
): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const entry = new xdr.LedgerEntry({
    lastModifiedLedgerSeq: h.ledgerSeq,
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
  h.write(
    lk,
    entry,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
}

export function dataDel(h: Invocation, frame: Frame, key: xdr.ScVal, durability: 0 | 1): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  h.write(
    lk,
    null,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
}

export function dataExtend(
  h: Invocation,
  frame: Frame,
  key: xdr.ScVal,
  durability: 0 | 1,
  liveUntil: number,
): void {
  const lk = contractDataKey(frame.callee.scAddress, key, durability);
  const e = h.read(
    lk,
    () => ["trying to access contract storage key outside of the footprint", [key]],
  );
  if (!e) {
    throw h.err(
      "Storage",
      "MissingValue",
      "trying to extend TTL of a missing contract storage key",
      [key],
    );
  }
  if (liveUntil > h.maxLiveUntil) {
    throw h.err("Storage", "InvalidAction", "trying to extend past max live_until ledger", [
      xdr.ScVal.scvU32(liveUntil),
      xdr.ScVal.scvU32(h.maxLiveUntil),
    ]);
  }
  h.requestLiveUntil(lk, liveUntil);
}

export function instanceMap(_h: Invocation, frame: Frame): Map<string, xdr.ScMapEntry> {
  if (!frame.storage) {
    frame.storage = new Map();
    for (const e of frame.callee.instance.storage ?? []) frame.storage.set(scvToken(e.key), e);
  }
  return frame.storage;
}

export function instanceGet(h: Invocation, frame: Frame, key: xdr.ScVal): xdr.ScVal | undefined {
  return instanceMap(h, frame).get(scvToken(key))?.val;
}

export function instanceSet(h: Invocation, frame: Frame, key: xdr.ScVal, val: xdr.ScVal): void {
  instanceMap(h, frame).set(scvToken(key), new xdr.ScMapEntry({ key, val }));
  frame.dirty = true;
}

export function instanceDel(h: Invocation, frame: Frame, key: xdr.ScVal): void {
  if (instanceMap(h, frame).delete(scvToken(key))) frame.dirty = true;
}

export function instanceExtend(h: Invocation, frame: Frame, liveUntil: number): void {
  h.requestLiveUntil(frame.callee.instanceKey, liveUntil);
  if (frame.callee.codeKey) h.requestLiveUntil(frame.callee.codeKey, liveUntil);
}

/** Writes a frame's instance storage back to its instance entry (one ledger entry). */
export function persistInstance(h: Invocation, frame: Frame): void {
  if (!frame.newExecutable && (!frame.dirty || !frame.storage)) return;
  const entries = frame.storage
    ? [...frame.storage.values()].sort((a, b) => compareScVal(a.key, b.key))
    : frame.callee.instance.storage;
  const instance = new xdr.ScContractInstance({
    executable: frame.newExecutable ?? frame.callee.instance.executable,
    storage: entries,
  });
  h.write(
    frame.callee.instanceKey,
    instanceEntry(frame.callee.scAddress, instance, h.ledgerSeq),
    () => ["trying to access contract instance key outside of the footprint", [
      addressScVal(frame.contract),
    ]],
  );
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
