/**
 * A typed client over any transport, from a generated `<Contract>Functions` interface and its
 * `<CONTRACT>_PARAMS` (`tools/gen_clients.ts`). No SDK here: the web's islands may import it.
 *
 * @module
 */

/** Each function's parameter names, in order. */
export type Params<F> = { readonly [K in keyof F]: readonly string[] };

/** The arguments of function `K` of `F`. */
export type ArgsOf<F, K extends keyof F> = F[K] extends (...a: infer A) => unknown ? A : never;

/** The result of function `K` of `F`. */
export type ResultOf<F, K extends keyof F> = F[K] extends (...a: never[]) => infer R ? R : never;

/** One method per function of `F`, resolving to its result. */
export type Calls<F> = { [K in keyof F]: (...args: ArgsOf<F, K>) => Promise<ResultOf<F, K>> };

/** Calls `fn` with positional native arguments and resolves to its native result. */
export type Transport = (fn: string, args: unknown[]) => Promise<unknown>;

/** A client of `F` whose every method goes through `transport`. */
export function typedCalls<F>(params: Params<F>, transport: Transport): Calls<F> {
  const calls: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const fn of Object.keys(params)) calls[fn] = (...args) => transport(fn, args);
  return calls as Calls<F>;
}
