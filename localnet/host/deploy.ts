/**
 * Deployment host functions: UploadContractWasm and CreateContract(V2) (SAC or Wasm, with
 * constructor).
 *
 * @module
 */
import { Asset, xdr } from "@stellar/stellar-sdk";
import type { Invocation } from "./host.ts";
import { sha256 as sha256Bytes } from "./auth.ts";
import { addressScVal } from "./codec.ts";
import { codeEntry, instanceEntry } from "./contract_data.ts";
import {
  addressFromScAddress,
  contractIdFromAddress,
  instanceLedgerKey,
  scAddressFromString,
} from "./keys.ts";
import { sacInstanceStorage } from "./sac.ts";
import { contractCodeKey } from "./xdr_fast.ts";
import type { Frame } from "./frame.ts";
import { validateWasm, WasmRefused } from "./wasm/vm.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function sym(s: string): xdr.ScVal {
  return xdr.ScVal.scvSymbol(s);
}

function bytesVal(b: Uint8Array): xdr.ScVal {
  return xdr.ScVal.scvBytes(b as Any);
}

/**
 * UploadContractWasm: validates the module as the real host does and stores the code keyed by
 * its sha256.
 */
export function uploadWasm(h: Invocation, wasm: Uint8Array): xdr.ScVal {
  const hash = sha256Bytes(wasm);
  try {
    validateWasm(wasm, h.req.ledger.protocolVersion);
  } catch (e) {
    if (e instanceof WasmRefused) {
      throw h.err("WasmVm", e.code, `contract code refused: ${e.message}`, [bytesVal(hash)]);
    }
    throw e;
  }
  const key = contractCodeKey(hash);
  const existing = h.read(
    key,
    () => ["trying to access contract code key outside of the footprint", [bytesVal(hash)]],
  );
  if (!existing) {
    h.write(key, codeEntry(hash, wasm, h.ledgerSeq), () => [
      "trying to access contract code key outside of the footprint",
      [bytesVal(hash)],
    ]);
  }
  return xdr.ScVal.scvBytes(hash as Any);
}

/** CreateContract(V2): a SAC from an asset, or a contract from uploaded Wasm. */
export function createContract(h: Invocation, hf: xdr.HostFunction): xdr.ScVal {
  const args = ((hf as Any).createContract ?? (hf as Any).createContractV2) as Any;
  const preimage = args.contractIdPreimage as xdr.ContractIdPreimage;
  const executable = args.executable as xdr.ContractExecutable;
  const ctorArgs: xdr.ScVal[] = args.constructorArgs ?? [];
  if (preimage.type === "contractIdPreimageFromAsset") {
    const asset = Asset.fromOperation((preimage as Any).fromAsset);
    const id = asset.contractId(h.req.ledger.networkPassphrase);
    createInstance(
      h,
      id,
      xdr.ContractExecutable.contractExecutableStellarAsset(),
      sacInstanceStorage(asset),
    );
    return addressScVal(id);
  }
  const from = (preimage as Any).fromAddress as xdr.ContractIdPreimageFromAddress;
  const deployer = addressFromScAddress(from.address);
  const salt: Uint8Array = (from.salt as Any).value ?? from.salt;
  if (executable.type !== "contractExecutableWasm") {
    throw h.err("Value", "InvalidInput", "unsupported executable");
  }
  const hash: Uint8Array = (executable as Any).wasmHash.value;
  const id = deployCode(
    h,
    null,
    deployer,
    hash,
    salt,
    ctorArgs,
    hf.type === "hostFunctionTypeCreateContractV2",
  );
  return addressScVal(id);
}

/** The create-contract authorized function (v1 without, v2 with constructor arguments). */
function createAuthFn(
  deployer: string,
  hash: Uint8Array,
  salt: Uint8Array,
  ctorArgs: xdr.ScVal[],
  v2: boolean,
): xdr.SorobanAuthorizedFunction {
  const contractIdPreimage = xdr.ContractIdPreimage.contractIdPreimageFromAddress(
    new xdr.ContractIdPreimageFromAddress({
      address: scAddressFromString(deployer),
      salt: salt as Any,
    }),
  );
  const executable = xdr.ContractExecutable.contractExecutableWasm(hash as Any);
  return v2
    ? xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractV2HostFn(
      new xdr.CreateContractArgsV2({ contractIdPreimage, executable, constructorArgs: ctorArgs }),
    )
    : xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeCreateContractHostFn(
      new xdr.CreateContractArgs({ contractIdPreimage, executable }),
    );
}

/**
 * Creates a contract from uploaded code on behalf of `deployer` (the host function, or
 * `create_contract[_with_constructor]` called by the contract in `caller`): the deployer
 * authorizes it, the id is derived as on the real network, the instance is written and
 * `__constructor` runs when the code has one. Returns the new contract id.
 */
export function deployCode(
  h: Invocation,
  caller: Frame | null,
  deployer: string,
  hash: Uint8Array,
  salt: Uint8Array,
  ctorArgs: xdr.ScVal[],
  v2: boolean,
): string {
  const id = contractIdFromAddress(h.networkId, deployer, salt);
  h.auth.requireCreate(deployer, createAuthFn(deployer, hash, salt, ctorArgs, v2));
  const codeKey = contractCodeKey(hash);
  const code = h.read(
    codeKey,
    () => ["trying to access contract code key outside of the footprint", [bytesVal(hash)]],
  );
  if (!code) {
    throw h.err("Storage", "MissingValue", "Wasm does not exist", [bytesVal(hash)]);
  }
  const compiled = h.compiled(hash, (code.data as Any).contractCode.code);
  const hasCtor = compiled.parsed.functions.has("__constructor");
  createInstance(h, id, xdr.ContractExecutable.contractExecutableWasm(hash as Any), null);
  if (hasCtor) {
    h.callContract(caller, id, "__constructor", ctorArgs, "constructor");
  } else if (ctorArgs.length > 0) {
    throw h.err("WasmVm", "MissingValue", "trying to invoke non-existent contract function", [
      sym("__constructor"),
    ]);
  }
  return id;
}

/** Writes a new instance entry (errors if the contract exists). */
export function createInstance(
  h: Invocation,
  id: string,
  executable: xdr.ContractExecutable,
  storage: xdr.ScMapEntry[] | null,
): void {
  const key = instanceLedgerKey(id);
  const what = (): [string, xdr.ScVal[]] => [
    "trying to access contract instance key outside of the footprint",
    [addressScVal(id)],
  ];
  if (h.read(key, what)) {
    throw h.err("Storage", "ExistingValue", "contract already exists", [addressScVal(id)]);
  }
  h.write(
    key,
    instanceEntry(
      scAddressFromString(id),
      new xdr.ScContractInstance({ executable, storage }),
      h.ledgerSeq,
    ),
    what,
  );
}
