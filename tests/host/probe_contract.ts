/**
 * A host-test contract exercising storage tiers, nested calls, rollback and the Env surface.
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
} from "../../contracts/sdk.ts";

const spec = defineSpec({
  functions: [
    { name: "put", inputs: [["tier", T.u32], ["key", T.symbol], ["val", T.u32]] },
    { name: "read", inputs: [["tier", T.u32], ["key", T.symbol]], output: T.option(T.u32) },
    { name: "del", inputs: [["tier", T.u32], ["key", T.symbol]] },
    { name: "bump", inputs: [["tier", T.u32], ["key", T.symbol]] },
    {
      name: "bump_to",
      inputs: [["tier", T.u32], ["key", T.symbol], ["threshold", T.u32], ["extend_to", T.u32]],
    },
    { name: "put_then_fail", inputs: [["key", T.symbol], ["code", T.u32]] },
    { name: "try_other", inputs: [["other", T.address], ["key", T.symbol]], output: T.bool },
    { name: "call_other", inputs: [["other", T.address], ["key", T.symbol]] },
    { name: "swallow", inputs: [["other", T.address]], output: T.bool },
    { name: "reenter", inputs: [["other", T.address]] },
    { name: "callback", inputs: [["back", T.address]] },
    { name: "echo", inputs: [["r", T.udt("Rec")]], output: T.udt("Rec") },
    { name: "whoami", output: T.tuple(T.address, T.option(T.address), T.u32) },
    {
      name: "ask_other",
      inputs: [["other", T.address]],
      output: T.tuple(T.address, T.option(T.address), T.u32),
    },
    { name: "auth_self_via", inputs: [["other", T.address]] },
    { name: "need_auth", inputs: [["who", T.address]] },
    { name: "need_auth_deep", inputs: [["middle", T.address], ["last", T.address]] },
    { name: "relay", inputs: [["other", T.address], ["who", T.address]] },
    { name: "async_fn" },
    { name: "pay", inputs: [["token", T.address], ["to", T.address], ["amount", T.i128]] },
    {
      name: "pay_twice_try",
      inputs: [["token", T.address], ["to", T.address], ["amount", T.i128]],
      output: T.bool,
    },
  ],
  structs: { Rec: [["n", T.i128], ["tag", T.symbol], ["who", T.option(T.address)]] },
  errors: { Failed: [7, "Failed on purpose"], Other: [8, "Other"] },
});

function tier(env: Env, t: number) {
  return t === 0 ? env.storage.instance : t === 1 ? env.storage.persistent : env.storage.temporary;
}

/** The probe contract. */
export const probeContract: ContractModule = {
  name: "probe",
  spec,
  functions: {
    put(env, { tier: t, key, val }: { tier: number; key: string; val: number }) {
      tier(env, t).set(sym(key), u32(val));
    },
    read(env, { tier: t, key }: { tier: number; key: string }) {
      const v = tier(env, t).get(sym(key));
      return v ? env.fromScVal(v, T.u32) : null;
    },
    del(env, { tier: t, key }: { tier: number; key: string }) {
      tier(env, t).remove(sym(key));
    },
    bump(env, { tier: t, key }: { tier: number; key: string }) {
      tier(env, t).extendTtl(sym(key), 100, 1000);
    },
    bump_to(
      env,
      { tier: t, key, threshold, extend_to }: {
        tier: number;
        key: string;
        threshold: number;
        extend_to: number;
      },
    ) {
      tier(env, t).extendTtl(sym(key), threshold, extend_to);
    },
    put_then_fail(env, { key, code }: { key: string; code: number }) {
      env.storage.persistent.set(sym(key), u32(1));
      env.storage.instance.extendTtl(sym(key), 5_000, 5_000);
      env.emit([sym("doomed")], u32(code));
      fail(code);
    },
    try_other(env, { other, key }: { other: string; key: string }) {
      env.storage.persistent.set(sym("mine"), u32(1));
      const r = env.tryCall(other, "put_then_fail", { key, code: 7 });
      if (r.ok) return true;
      env.storage.persistent.set(sym("err"), u32(Number(r.error.code)));
      return false;
    },
    call_other(env, { other, key }: { other: string; key: string }) {
      env.storage.persistent.set(sym("mine"), u32(1));
      env.call(other, "put_then_fail", { key, code: 8 });
    },
    swallow(env, { other }: { other: string }) {
      try {
        env.call(other, "put_then_fail", { key: "x", code: 7 });
      } catch {
        // A real contract cannot catch a failed call; the host still fails this frame.
      }
      return true;
    },
    reenter(env, { other }: { other: string }) {
      env.call(other, "callback", { back: env.currentContract });
    },
    callback(env, { back }: { back: string }) {
      env.call(back, "whoami");
    },
    echo(_env, { r }: { r: unknown }) {
      return r;
    },
    whoami(env) {
      return [env.currentContract, env.invoker ?? null, env.ledger.sequence];
    },
    ask_other(env, { other }: { other: string }) {
      return env.call(other, "whoami");
    },
    auth_self_via(env, { other }: { other: string }) {
      // `other.need_auth(self)`: authorized by the invoker rule.
      env.call(other, "need_auth", { who: env.currentContract });
    },
    need_auth(env, { who }: { who: string }) {
      env.requireAuth(who);
    },
    need_auth_deep(env, { middle, last }: { middle: string; last: string }) {
      // self → middle.relay(last, self) → last.need_auth(self): not a direct call, so it needs auth.
      env.call(middle, "relay", { other: last, who: env.currentContract });
    },
    relay(env, { other, who }: { other: string; who: string }) {
      env.call(other, "need_auth", { who });
    },
    async_fn() {
      return Promise.resolve(1);
    },
    pay(env, { token, to, amount }: { token: string; to: string; amount: bigint }) {
      // The token's require_auth(self) is covered by the invoker rule.
      env.call(token, "transfer", { from: env.currentContract, to, amount });
    },
    pay_twice_try(env, { token, to, amount }: { token: string; to: string; amount: bigint }) {
      env.call(token, "transfer", { from: env.currentContract, to, amount });
      return env.tryCall(token, "transfer", { from: env.currentContract, to, amount }).ok;
    },
  },
};

/** Address ScVal helper re-export for tests. */
export { addr };
