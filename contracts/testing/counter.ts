/**
 * A small test contract for the host and node tests: per-user counters with auth, a typed
 * error, an event, a cross-contract call into a token, and a panic.
 *
 * - `__constructor(admin)`: stores the admin in instance storage.
 * - `increment(user, by) -> u32`: requires `user`'s auth; `TooBig` (#1) when `by > 100`;
 *   emits `[incr, user]` with the new count as data.
 * - `get(user) -> u32`: the user's count (0 if none), no auth.
 * - `transfer_via(token, from, to, amount)`: requires `from`'s auth (unless `from` is this
 *   contract), then calls `token.transfer(from, to, amount)` — a sub-invocation `from`
 *   authorizes in the same entry; the contract's own funds move by the invoker rule.
 * - `boom()`: throws a plain Error (`Error(WasmVm, InvalidAction)`).
 *
 * @module
 */
import {
  addr,
  type ContractModule,
  defineSpec,
  type Env,
  fail,
  sym,
  T,
  u32,
  variant,
} from "../sdk.ts";

const spec = defineSpec({
  functions: [
    { name: "__constructor", inputs: [["admin", T.address]] },
    { name: "increment", inputs: [["user", T.address], ["by", T.u32]], output: T.u32 },
    { name: "get", inputs: [["user", T.address]], output: T.u32 },
    { name: "admin", output: T.address },
    {
      name: "transfer_via",
      inputs: [["token", T.address], ["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
    { name: "boom" },
  ],
  errors: { TooBig: [1, "Too big"], NoAdmin: [2, "No admin"] },
});

const ADMIN = sym("Admin");
const countKey = (user: string) => variant("Count", addr(user));

function readCount(env: Env, user: string): number {
  const v = env.storage.persistent.get(countKey(user));
  return v ? env.fromScVal<number>(v, T.u32) : 0;
}

/** The counter test contract. */
export const counterContract: ContractModule = {
  name: "counter",
  spec,
  functions: {
    __constructor(env, { admin }: { admin: string }) {
      env.storage.instance.set(ADMIN, addr(admin));
    },
    increment(env, { user, by }: { user: string; by: number }) {
      env.requireAuth(user);
      if (by > 100) fail(1);
      const next = readCount(env, user) + by;
      env.storage.persistent.set(countKey(user), u32(next));
      env.emit([sym("incr"), addr(user)], u32(next));
      return next;
    },
    get(env, { user }: { user: string }) {
      return readCount(env, user);
    },
    admin(env) {
      const v = env.storage.instance.get(ADMIN);
      return v ? env.fromScVal<string>(v, T.address) : fail(2);
    },
    transfer_via(
      env,
      { token, from, to, amount }: { token: string; from: string; to: string; amount: bigint },
    ) {
      // Another address authorizes this call and the transfer beneath it (a sub-invocation);
      // the contract's own funds need nothing (the invoker rule covers the token's check).
      if (from !== env.currentContract) env.requireAuth(from);
      env.call(token, "transfer", { from, to, amount });
    },
    boom() {
      throw new Error("boom");
    },
  },
};
