/**
 * A small in-process host for unit-testing the DEX and allocation-vault stand-in contracts
 * without the local node: storage tiers as maps, nested calls with rollback, events, and a
 * strict auth model that accepts G-account auth (as if signed) but lets a contract address be
 * authorized only by the invoker rule (the caller is that contract), which is all the stand-ins
 * can rely on on the real host without `authorize_as_current_contract`.
 *
 * Arguments and return values go through the callee's spec (`contract.Spec` of the SDK), so the
 * contracts see the same native shapes as under the real host (bigint, number, {tag, values}…).
 * The over-RPC tests (`dex_test.ts`, `allocation_vault_test.ts`) cover the real host.
 */
import { contract, Keypair, scValToNative, StrKey, xdr } from "@stellar/stellar-sdk";
import {
  addr,
  ContractError,
  type ContractModule,
  defineSpec,
  type Env,
  i128,
  type Storage,
  T,
  type TryCallResult,
  type TypeDef,
  variant,
} from "../../../contracts/sdk.ts";
import { big, getI128, setI128 } from "../../../localnet/protocols/dex/common.ts";

type Tier = Map<string, xdr.ScVal>;

interface Instance {
  module: ContractModule;
  spec: contract.Spec;
  tiers: { instance: Tier; persistent: Tier; temporary: Tier };
}

/** An emitted event. */
export interface FakeEvent {
  contract: string;
  topics: xdr.ScVal[];
  data: xdr.ScVal;
}

/** An auth check that passed. */
export interface AuthRecord {
  address: string;
  contract: string;
  fn: string;
}

function tierStorage(t: Tier): Storage {
  const k = (key: xdr.ScVal) => key.toXDR("base64");
  return {
    get: (key) => t.get(k(key)),
    has: (key) => t.has(k(key)),
    set: (key, value) => void t.set(k(key), value),
    remove: (key) => void t.delete(k(key)),
    extendTtl: () => {},
  };
}

function typeDef(t: TypeDef): xdr.ScSpecTypeDef {
  // deno-lint-ignore no-explicit-any
  return xdr.ScSpecTypeDef.fromJson(t as any);
}

/** The fake host. */
export class FakeHost {
  readonly contracts = new Map<string, Instance>();
  ledger = { sequence: 100, timestamp: 1_700_000_000n };
  events: FakeEvent[] = [];
  auths: AuthRecord[] = [];
  /** G accounts that refuse to authorize (to test auth failures). */
  refuse = new Set<string>();
  private stack: { contract: string; fn: string; events: FakeEvent[] }[] = [];

  /** Deploys a module; runs `__constructor` with `args`. */
  deploy(module: ContractModule, args?: Record<string, unknown> | unknown[]): string {
    const id = StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as never);
    const spec = new contract.Spec(module.spec.map((e) => e.toXDR("base64")));
    this.contracts.set(id, {
      module,
      spec,
      tiers: { instance: new Map(), persistent: new Map(), temporary: new Map() },
    });
    if (module.functions.__constructor) this.invoke(id, "__constructor", args ?? {});
    return id;
  }

  /** A root invocation (like a submitted transaction): all writes/events kept on success. */
  invoke<R = unknown>(id: string, fn: string, args: Record<string, unknown> | unknown[] = {}): R {
    const events: FakeEvent[] = [];
    const r = this.call<R>(undefined, id, fn, args, events);
    this.events.push(...events);
    return r;
  }

  /** A root invocation expected to fail with a contract error; returns its code. */
  invokeError(id: string, fn: string, args: Record<string, unknown> | unknown[] = {}): number {
    try {
      this.invoke(id, fn, args);
    } catch (e) {
      if (e instanceof ContractError) return e.code;
      throw e;
    }
    throw new Error(`${fn} did not fail`);
  }

  private snapshot(): Map<string, [Tier, Tier, Tier]> {
    const s = new Map<string, [Tier, Tier, Tier]>();
    for (const [id, c] of this.contracts) {
      s.set(id, [
        new Map(c.tiers.instance),
        new Map(c.tiers.persistent),
        new Map(c.tiers.temporary),
      ]);
    }
    return s;
  }

  private restore(s: Map<string, [Tier, Tier, Tier]>): void {
    for (const [id, [a, b, c]] of s) {
      const inst = this.contracts.get(id)!;
      inst.tiers = { instance: a, persistent: b, temporary: c };
    }
  }

  private call<R>(
    invoker: string | undefined,
    id: string,
    fn: string,
    args: Record<string, unknown> | unknown[],
    sink: FakeEvent[],
  ): R {
    const inst = this.contracts.get(id);
    if (!inst) throw new Error(`no contract ${id}`);
    const f = inst.module.functions[fn];
    if (!f) throw new Error(`no function ${fn} on ${inst.module.name}`);
    const spec = inst.spec;
    // deno-lint-ignore no-explicit-any
    const fnSpec = spec.getFunc(fn) as any;
    const named: Record<string, unknown> = {};
    // deno-lint-ignore no-explicit-any
    fnSpec.inputs.forEach((inp: any, i: number) => {
      const name = inp.name.toString();
      const raw = Array.isArray(args) ? args[i] : args[name];
      const scv = spec.nativeToScVal(raw, inp.type);
      named[name] = spec.scValToNative(scv, inp.type);
    });
    const snap = this.snapshot();
    const frame = { contract: id, fn, events: [] as FakeEvent[] };
    this.stack.push(frame);
    try {
      const env = this.env(inst, id, invoker, frame.events);
      const result = f(env, named);
      const outs = fnSpec.outputs;
      let out: unknown = null;
      if (outs.length > 0) {
        let t = outs[0];
        if (t.type === "scSpecTypeResult") t = t.value.okType;
        if (t.type !== "scSpecTypeVoid") {
          out = spec.scValToNative(spec.nativeToScVal(result, t), t);
        }
      }
      sink.push(...frame.events);
      return out as R;
    } catch (e) {
      this.restore(snap);
      throw e;
    } finally {
      this.stack.pop();
    }
  }

  private env(inst: Instance, id: string, invoker: string | undefined, events: FakeEvent[]): Env {
    // deno-lint-ignore no-this-alias
    const host = this;
    const fnName = () => host.stack[host.stack.length - 1].fn;
    const requireAuth = (a: string) => {
      if (StrKey.isValidContract(a)) {
        if (a !== invoker) throw new Error(`Error(Auth, InvalidAction): ${a} not authorized`);
      } else if (host.refuse.has(a)) {
        throw new Error(`Error(Auth, InvalidAction): ${a} refused`);
      }
      host.auths.push({ address: a, contract: id, fn: fnName() });
    };
    return {
      currentContract: id,
      invoker,
      ledger: host.ledger,
      storage: {
        instance: tierStorage(inst.tiers.instance),
        persistent: tierStorage(inst.tiers.persistent),
        temporary: tierStorage(inst.tiers.temporary),
      },
      requireAuth,
      requireAuthForArgs: (a) => requireAuth(a),
      call: <R>(c: string, f: string, a?: unknown[] | Record<string, unknown>) =>
        host.call<R>(id, c, f, a ?? [], events),
      tryCall<R>(c: string, f: string, a?: unknown[] | Record<string, unknown>): TryCallResult<R> {
        const sub: FakeEvent[] = [];
        try {
          const value = host.call<R>(id, c, f, a ?? [], sub);
          events.push(...sub);
          return { ok: true, value };
        } catch (e) {
          if (e instanceof ContractError) {
            return { ok: false, error: { type: "Contract", code: e.code, message: e.message } };
          }
          return {
            ok: false,
            error: { type: "WasmVm", code: "InvalidAction", message: String(e) },
          };
        }
      },
      emit: (topics, data) => void events.push({ contract: id, topics, data }),
      toScVal: (v, t) => inst.spec.nativeToScVal(v, typeDef(t)),
      fromScVal: <R>(v: xdr.ScVal, t: TypeDef) => inst.spec.scValToNative(v, typeDef(t)) as R,
    };
  }

  /** A fresh G address. */
  account(): string {
    return Keypair.random().publicKey();
  }
}

// ---------------------------------------------------------------------------------------------
// A minimal SEP-41 token standing in for a SAC (balances in persistent storage)
// ---------------------------------------------------------------------------------------------

const bal = (a: string) => variant("Balance", addr(a));
const allow = (from: string, spender: string) => variant("Allowance", addr(from), addr(spender));

/** Fake SAC: balance/transfer/mint/approve/allowance/transfer_from/symbol/decimals/name. */
export const fakeToken: ContractModule = {
  name: "fake_token",
  spec: defineSpec({
    errors: { InsufficientBalance: [10, "balance"], InsufficientAllowance: [9, "allowance"] },
    functions: [
      { name: "__constructor", inputs: [["symbol", T.string]] },
      { name: "balance", inputs: [["id", T.address]], output: T.i128 },
      { name: "transfer", inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]] },
      { name: "mint", inputs: [["to", T.address], ["amount", T.i128]] },
      {
        name: "approve",
        inputs: [["from", T.address], ["spender", T.address], ["amount", T.i128], [
          "expiration_ledger",
          T.u32,
        ]],
      },
      { name: "allowance", inputs: [["from", T.address], ["spender", T.address]], output: T.i128 },
      {
        name: "transfer_from",
        inputs: [["spender", T.address], ["from", T.address], ["to", T.address], [
          "amount",
          T.i128,
        ]],
      },
      { name: "symbol", output: T.string },
      { name: "name", output: T.string },
      { name: "decimals", output: T.u32 },
    ],
  }),
  functions: {
    __constructor(env, { symbol }: { symbol: string }) {
      env.storage.instance.set(variant("Symbol"), xdr.ScVal.scvString(symbol));
    },
    balance: (env, { id }: { id: string }) => getI128(env.storage.persistent, bal(id)),
    transfer(env, a: { from: string; to: string; amount: bigint }) {
      env.requireAuth(a.from);
      move(env, a.from, a.to, big(a.amount));
    },
    mint(env, a: { to: string; amount: bigint }) {
      setI128(
        env.storage.persistent,
        bal(a.to),
        getI128(env.storage.persistent, bal(a.to)) + big(a.amount),
      );
    },
    approve(env, a: { from: string; spender: string; amount: bigint }) {
      env.requireAuth(a.from);
      env.storage.temporary.set(allow(a.from, a.spender), i128(big(a.amount)));
    },
    allowance: (env, a: { from: string; spender: string }) =>
      getI128(env.storage.temporary, allow(a.from, a.spender)),
    transfer_from(env, a: { spender: string; from: string; to: string; amount: bigint }) {
      env.requireAuth(a.spender);
      const have = getI128(env.storage.temporary, allow(a.from, a.spender));
      const amount = big(a.amount);
      if (have < amount) throw new ContractError(9);
      env.storage.temporary.set(allow(a.from, a.spender), i128(have - amount));
      move(env, a.from, a.to, amount);
    },
    symbol: (env) => String(scValToNative(env.storage.instance.get(variant("Symbol"))!)),
    name: (env) => String(scValToNative(env.storage.instance.get(variant("Symbol"))!)),
    decimals: () => 7,
  },
};

function move(env: Env, from: string, to: string, amount: bigint): void {
  if (amount < 0n) throw new ContractError(8);
  const fb = getI128(env.storage.persistent, bal(from));
  if (fb < amount) throw new ContractError(10);
  setI128(env.storage.persistent, bal(from), fb - amount);
  setI128(env.storage.persistent, bal(to), getI128(env.storage.persistent, bal(to)) + amount);
}

/** The fake host as the async deploy target the allocation vault's deploy helper takes. */
export function asDexHost(h: FakeHost) {
  return {
    deployContract: (m: ContractModule, args?: Record<string, unknown>) =>
      Promise.resolve(h.deploy(m, args)),
    invoke: <R = unknown>(id: string, fn: string, args?: Record<string, unknown> | unknown[]) =>
      Promise.resolve(h.invoke<R>(id, fn, args ?? {})),
  };
}
