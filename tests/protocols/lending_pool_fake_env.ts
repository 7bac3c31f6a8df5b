/**
 * A minimal in-memory stand-in for the contract host, for fast unit tests of the lending pool
 * and oracle logic (the JSON-RPC conformance tests use the real local node).
 *
 * - storage tiers keyed by the key ScVal's XDR; a failed top-level invocation rolls back;
 * - `call` maps positional args to parameter names through the callee's spec; callee results
 *   are returned as the callee's function returned them (native values);
 * - `requireAuth` records the address (mock-all-auths), accepting the invoker rule;
 * - a tiny SAC-like token module (`transfer`, `transfer_from`, `balance`, `mint`).
 *
 * @module
 */
import { Keypair, StrKey, xdr } from "@stellar/stellar-sdk";
import { ContractError, type ContractModule, type Env, type Storage } from "../../contracts/sdk.ts";

type Tier = Map<string, xdr.ScVal>;

interface Deployed {
  module: ContractModule;
  tiers: { instance: Tier; persistent: Tier; temporary: Tier };
  params: Map<string, string[]>;
}

/** An emitted event. */
export interface FakeEvent {
  contract: string;
  topics: xdr.ScVal[];
  data: xdr.ScVal;
}

function keyOf(k: xdr.ScVal): string {
  return k.toXDR("base64");
}

function storage(tier: Tier): Storage {
  return {
    get: (k) => tier.get(keyOf(k)),
    has: (k) => tier.has(keyOf(k)),
    set: (k, v) => void tier.set(keyOf(k), v),
    remove: (k) => void tier.delete(keyOf(k)),
    extendTtl: () => {},
  };
}

function paramNames(module: ContractModule): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const e of module.spec) {
    // deno-lint-ignore no-explicit-any
    const j = (e as any).toJson();
    if (j.function_v0) {
      // deno-lint-ignore no-explicit-any
      out.set(j.function_v0.name, j.function_v0.inputs.map((i: any) => i.name));
    }
  }
  return out;
}

/** A fresh random contract address. */
export function randomContractId(): string {
  return StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)) as unknown as Buffer);
}

/** A fresh random account address. */
export function randomAccount(): string {
  return Keypair.random().publicKey();
}

/** The fake chain. */
export class FakeWorld {
  readonly contracts = new Map<string, Deployed>();
  readonly ledger = { sequence: 100, timestamp: 1_700_000_000n };
  events: FakeEvent[] = [];
  auths: string[] = [];

  /** Registers a module at a new address and runs its constructor. */
  deploy(module: ContractModule, ctorArgs?: Record<string, unknown>): string {
    const id = randomContractId();
    this.contracts.set(id, {
      module,
      tiers: { instance: new Map(), persistent: new Map(), temporary: new Map() },
      params: paramNames(module),
    });
    if (module.functions.__constructor) this.invoke(id, "__constructor", ctorArgs ?? {});
    return id;
  }

  /** Advances `n` ledgers of `secondsPerLedger` each. */
  advance(n: number, secondsPerLedger = 5): void {
    this.ledger.sequence += n;
    this.ledger.timestamp += BigInt(n * secondsPerLedger);
  }

  /** Raw storage tier of a contract (for layout assertions). */
  tier(id: string, t: "instance" | "persistent" | "temporary"): Tier {
    return this.contracts.get(id)!.tiers[t];
  }

  /** Top-level invocation: rolls every write and event back when it throws. */
  invoke<R = unknown>(id: string, fn: string, args: Record<string, unknown> | unknown[]): R {
    const snapshot = new Map<string, Deployed["tiers"]>();
    for (const [cid, d] of this.contracts) {
      snapshot.set(cid, {
        instance: new Map(d.tiers.instance),
        persistent: new Map(d.tiers.persistent),
        temporary: new Map(d.tiers.temporary),
      });
    }
    const eventCount = this.events.length;
    try {
      return this.run<R>(id, fn, args, undefined);
    } catch (e) {
      for (const [cid, t] of snapshot) this.contracts.get(cid)!.tiers = t;
      this.events.length = eventCount;
      throw e;
    }
  }

  private run<R>(
    id: string,
    fn: string,
    args: Record<string, unknown> | unknown[],
    invoker?: string,
  ): R {
    const d = this.contracts.get(id);
    if (!d) throw new Error(`no contract ${id}`);
    const f = d.module.functions[fn];
    if (!f) throw new Error(`no function ${fn} on ${d.module.name}`);
    const names = d.params.get(fn);
    const named = Array.isArray(args) && names
      ? Object.fromEntries(names.map((n, i) => [n, args[i]]))
      : args;
    const env: Env = {
      currentContract: id,
      invoker,
      ledger: { sequence: this.ledger.sequence, timestamp: this.ledger.timestamp },
      storage: {
        instance: storage(d.tiers.instance),
        persistent: storage(d.tiers.persistent),
        temporary: storage(d.tiers.temporary),
      },
      requireAuth: (address: string) => {
        if (address !== invoker) this.auths.push(address);
      },
      requireAuthForArgs: (address: string) => {
        if (address !== invoker) this.auths.push(address);
      },
      call: <R2>(contract: string, fn2: string, a?: unknown[] | Record<string, unknown>): R2 =>
        this.run<R2>(contract, fn2, a ?? [], id),
      tryCall: (contract: string, fn2: string, a?: unknown[] | Record<string, unknown>) => {
        try {
          return { ok: true, value: this.run(contract, fn2, a ?? [], id) };
        } catch (e) {
          const code = e instanceof ContractError ? e.code : "InvalidAction";
          return { ok: false, error: { type: "Contract", code, message: String(e) } };
        }
      },
      emit: (topics: xdr.ScVal[], data: xdr.ScVal) => {
        this.events.push({ contract: id, topics, data });
      },
      toScVal() {
        throw new Error("toScVal not supported by the fake env");
      },
      fromScVal() {
        throw new Error("fromScVal not supported by the fake env");
      },
    } as Env;
    return f(env, named) as R;
  }
}

/** A SAC-like token: balances in persistent storage, `transfer` requires `from`'s auth. */
export const fakeToken: ContractModule = {
  name: "fake_token",
  spec: [],
  functions: {
    mint: (env, a) => {
      const to = String(a.to);
      env.storage.persistent.set(
        xdr.ScVal.scvString(`bal:${to}`),
        encodeI(balanceOf(env, to) + BigInt(a.amount)),
      );
    },
    balance: (env, a) => balanceOf(env, String(a.id)),
    transfer: (env, a) => {
      env.requireAuth(String(a.from));
      move(env, String(a.from), String(a.to), BigInt(a.amount));
    },
    transfer_from: (env, a) => {
      env.requireAuth(String(a.spender));
      move(env, String(a.from), String(a.to), BigInt(a.amount));
    },
  },
};

function encodeI(v: bigint): xdr.ScVal {
  return xdr.ScVal.scvString(v.toString());
}
function decodeI(v: xdr.ScVal): bigint {
  // deno-lint-ignore no-explicit-any
  return BigInt(new TextDecoder().decode((v as any).str.bytes ?? (v as any).str));
}
function balanceOf(env: Env, id: string): bigint {
  const cur = env.storage.persistent.get(xdr.ScVal.scvString(`bal:${id}`));
  return cur ? decodeI(cur) : 0n;
}
function move(env: Env, from: string, to: string, amount: bigint): void {
  if (amount < 0n) throw new ContractError(8);
  const fb = balanceOf(env, from);
  if (fb < amount) throw new ContractError(10);
  env.storage.persistent.set(xdr.ScVal.scvString(`bal:${from}`), encodeI(fb - amount));
  const tb = balanceOf(env, to);
  env.storage.persistent.set(xdr.ScVal.scvString(`bal:${to}`), encodeI(tb + amount));
}

// The fake token takes named args positionally in this order.
for (
  const [fn, names] of Object.entries({
    mint: ["to", "amount"],
    balance: ["id"],
    transfer: ["from", "to", "amount"],
    transfer_from: ["spender", "from", "to", "amount"],
  })
) {
  const f = fakeToken.functions[fn];
  // deno-lint-ignore no-explicit-any
  (fakeToken.functions as any)[fn] = (env: Env, a: any) =>
    f(env, Array.isArray(a) ? Object.fromEntries(names.map((n, i) => [n, a[i]])) : a);
}
