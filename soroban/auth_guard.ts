/**
 * The keeper signs only what it meant (issue 20): the authorization entries a simulation
 * recorded are checked against the shape the caller expected BEFORE the transaction is
 * assembled and signed.
 *
 * Why: the keeper is the source account of every transaction it sends, so every recorded
 * `SorobanAuthorizationEntry` with source-account credentials is authorized by the
 * transaction's own signature — whatever a called contract asked for while it was simulated.
 * A hostile pool listed in the vault's flash policy whose `submit` also called
 * `XLM.transfer(keeper → thief)` and `USDC.approve(keeper, thief, …)` was signed for as if
 * the keeper had meant it. The expected shape is derived from what the keeper planned (never
 * from the simulation), and anything else is refused with {@link UnexpectedAuthError}.
 *
 * Rules:
 * - every entry must carry source-account credentials: an address-credentials entry is an
 *   authorization for someone else (or one the keeper would have to sign separately). With a
 *   channel account as the transaction's source (issue 26) it is the other way round: every
 *   entry must carry address credentials for the keeper's own address (the keeper signs exactly
 *   those, with `authorizeEntry`), and a source-account entry is refused — the channel
 *   authorizes nothing; the invocation trees are checked by the same rules below, so a
 *   channel-account flash is held to exactly the same allow-list;
 * - every recorded invocation must match an allowed call at its place in the tree: the same
 *   contract and function, arguments accepted by the call's check, and its own
 *   sub-invocations allowed by the call's `subs`, recursively; an allowed call may occur at
 *   most `max` times among its siblings (default 1);
 * - allowed calls that did not happen are fine: the shape is an allow-list, not a script
 *   (a flash whose lot arrived empty makes fewer calls);
 * - a create-contract authorization is never allowed.
 *
 * @module
 */
import { Address, scValToNative, xdr } from "@stellar/stellar-sdk";
import { UnexpectedAuthError } from "./errors.ts";

export { UnexpectedAuthError };

/** Where a checked invocation sits: its contract and function, and its parent's contract. */
export interface CallSite {
  contract: string;
  fn: string;
  /** Contract of the invocation this one is a sub-invocation of (undefined for a root). */
  parent?: string;
}

/** Checks one argument: undefined when accepted, otherwise why not (a short phrase). */
export type ArgCheck = (value: xdr.ScVal, site: CallSite) => string | undefined;

/** Checks all arguments of a call: undefined when accepted, otherwise why not. */
export type ArgsCheck = (args: readonly xdr.ScVal[], site: CallSite) => string | undefined;

/** A contract the keeper cannot name in advance (e.g. a pool a router picks at run time). */
export interface ContractMatch {
  /** How a refusal names it, e.g. "the pool of the pair". */
  describe: string;
  test(contractId: string): boolean;
}

/** One invocation the keeper means to authorize, and what it may authorize beneath it. */
export interface AuthCall {
  contract: string | ContractMatch;
  fn: string;
  args: ArgsCheck;
  /** Sub-invocations allowed beneath this one (default: none). */
  subs?: readonly AuthCall[];
  /** How many times it may occur among its siblings (default 1). */
  max?: number;
}

/**
 * What a transaction may have the keeper authorize beneath its root call. The root itself is
 * always exactly the call the keeper built ({@link rootCall}).
 */
export interface AuthShape {
  /** Sub-invocations the root call may make under the keeper's authorization. */
  subs: readonly AuthCall[];
}

/** The default shape: the root call only, no sub-invocation authorized. */
export const ROOT_ONLY: AuthShape = Object.freeze({ subs: Object.freeze([]) });

/** i64::MAX, the allowance Vigil's liquidator sets for the duration of a flash. */
export const I64_MAX = (1n << 63n) - 1n;

/** An allowed call. */
export function call(
  contract: string | ContractMatch,
  fn: string,
  args: ArgsCheck,
  opts: { subs?: readonly AuthCall[]; max?: number } = {},
): AuthCall {
  return { contract, fn, args, subs: opts.subs ?? [], max: opts.max ?? 1 };
}

/** Any contract, described for refusals (use sparingly: constrain its arguments and subs). */
export function anyContract(describe: string): ContractMatch {
  return { describe, test: () => true };
}

/** The transaction's root: exactly `contract.fn(args)`, with `shape.subs` beneath it. */
export function rootCall(
  contract: string,
  fn: string,
  args: readonly xdr.ScVal[],
  shape: AuthShape,
): AuthCall {
  return call(contract, fn, exactArgs(args), { subs: shape.subs });
}

/** Arguments equal to `expected`, value by value (XDR equality). */
export function exactArgs(expected: readonly xdr.ScVal[]): ArgsCheck {
  const want = expected.map((v) => v.toXdr("base64"));
  return (args) => {
    if (args.length !== want.length) return `${args.length} arguments, expected ${want.length}`;
    for (let i = 0; i < want.length; i++) {
      if (args[i].toXdr("base64") !== want[i]) {
        return `argument #${i} is ${render(args[i])}, expected ${
          render(xdr.ScVal.fromXdr(want[i], "base64"))
        }`;
      }
    }
    return undefined;
  };
}

const PROGRESS = Symbol("progress");
type Progress = (args: readonly xdr.ScVal[], site: CallSite) => number;

/** Named positional argument checks (names only serve the refusal's wording). */
export function argsOf(...checks: [name: string, check: ArgCheck][]): ArgsCheck {
  // How many leading arguments pass: among several refusals of one call, the closest plan wins.
  const progress: Progress = (args, site) => {
    let i = 0;
    while (i < checks.length && i < args.length && !checks[i][1](args[i], site)) i++;
    return i;
  };
  const check: ArgsCheck = (args, site) => {
    if (args.length !== checks.length) {
      return `${args.length} arguments, expected ${checks.length}`;
    }
    const i = progress(args, site);
    if (i === checks.length) return undefined;
    const [name, c] = checks[i];
    return `argument \`${name}\` ${c(args[i], site)}`;
  };
  return Object.assign(check, { [PROGRESS]: progress });
}

/** How close `args` came to passing `check` (leading arguments accepted; 0 when unknown). */
function progressOf(check: ArgsCheck, args: readonly xdr.ScVal[], site: CallSite): number {
  const p = (check as ArgsCheck & { [PROGRESS]?: Progress })[PROGRESS];
  return p ? p(args, site) : 0;
}

/** Argument checks for {@link argsOf}. */
export const is = {
  /** Anything (e.g. a value the trusted caller supplies, like the vault's policy). */
  any: (): ArgCheck => () => undefined,
  /** Exactly this value (XDR equality). */
  value(expected: xdr.ScVal): ArgCheck {
    const want = expected.toXdr("base64");
    return (v) =>
      v.toXdr("base64") === want ? undefined : `is ${render(v)}, expected ${render(expected)}`;
  },
  /** This address; `label` names it in a refusal ("the pool"). */
  address(id: string, label?: string): ArgCheck {
    return (v) => {
      const got = addressOf(v);
      if (got === id) return undefined;
      return `is ${got ?? render(v)}, expected ${label ? `${label} ` : ""}${id}`;
    };
  },
  /** The contract of the parent invocation (a pool pulling its own input). */
  parentContract(): ArgCheck {
    return (v, site) => {
      const got = addressOf(v);
      if (site.parent !== undefined && got === site.parent) return undefined;
      return `is ${got ?? render(v)}, expected the calling contract ${site.parent ?? "(none)"}`;
    };
  },
  /** An i128 between 0 and `max` inclusive. */
  i128AtMost(max: bigint): ArgCheck {
    return (v) => {
      const n = i128Of(v);
      if (n === undefined) return `is ${render(v)}, expected an i128`;
      if (n < 0n || n > max) return `is ${n}, expected at most ${max}`;
      return undefined;
    };
  },
  /** An i128 equal to one of `values`. */
  i128OneOf(...values: bigint[]): ArgCheck {
    return (v) => {
      const n = i128Of(v);
      if (n !== undefined && values.includes(n)) return undefined;
      return `is ${n ?? render(v)}, expected ${values.join(" or ")}`;
    };
  },
};

/** SAC `transfer(from, to, amount)` with `amount` ≤ `maxAmount`. */
export function sacTransfer(
  token: string,
  from: string,
  to: ArgCheck,
  maxAmount: bigint,
  max = 1,
): AuthCall {
  return call(
    token,
    "transfer",
    argsOf(["from", is.address(from)], ["to", to], ["amount", is.i128AtMost(maxAmount)]),
    { max },
  );
}

/** SAC `approve(from, spender, amount, expiration_ledger)` with `amount` one of `amounts`. */
export function sacApprove(
  token: string,
  from: string,
  spender: ArgCheck,
  amounts: bigint[],
  expirationLedger: ArgCheck,
  max = 1,
): AuthCall {
  return call(
    token,
    "approve",
    argsOf(
      ["from", is.address(from)],
      ["spender", spender],
      ["amount", is.i128OneOf(...amounts)],
      ["expiration_ledger", expirationLedger],
    ),
    { max },
  );
}

/** A recorded invocation, decoded. */
interface Inv {
  /** Contract id; "" for a create-contract authorization. */
  contract: string;
  fn: string;
  args: xdr.ScVal[];
  subs: Inv[];
  create: boolean;
}

/** Why a recorded invocation is refused. */
interface Refusal {
  reason: string;
  inv: Inv;
  /** Function names from the root to the refused invocation, e.g. "flash › exec › submit". */
  path: string;
  /** How close the refused call came to its pattern (arguments accepted; Infinity: all). */
  closeness?: number;
}

/**
 * Checks the recorded entries against the allowed roots; throws {@link UnexpectedAuthError}
 * naming the first refused invocation, its contract and function, and why.
 */
export function checkAuthEntries(
  entries: readonly xdr.SorobanAuthorizationEntry[],
  roots: readonly AuthCall[],
  opts: {
    /**
     * The keeper's address when a channel account is the source: entries must then be address
     * credentials for it (signed separately), never source-account ones.
     */
    signer?: string;
  } = {},
): void {
  const invs: Inv[] = [];
  for (const e of entries) {
    const inv = decode(e.rootInvocation);
    const creds = e.credentials;
    if (opts.signer !== undefined) {
      const plain = creds.type === "sorobanCredentialsAddress" ||
        creds.type === "sorobanCredentialsAddressV2";
      const who = credentialsAddress(creds);
      if (!plain || who !== opts.signer) {
        throw refusalError({
          reason: creds.type === "sorobanCredentialsSourceAccount"
            ? "the entry's credentials are the channel account's (the transaction source), " +
              "which authorizes nothing"
            : `the entry's credentials (${creds.type.replace(/^sorobanCredentials/, "")}) are ` +
              `for ${who ?? "?"}, not the keeper's address ${opts.signer}`,
          inv,
          path: label(inv),
        });
      }
      invs.push(inv);
      continue;
    }
    if (creds.type !== "sorobanCredentialsSourceAccount") {
      const who = credentialsAddress(creds) ?? creds.type;
      throw refusalError({
        reason: `the entry's credentials are for ${who}, not the keeper's source account ` +
          "(an authorization for someone else, or one the keeper would sign separately)",
        inv,
        path: label(inv),
      });
    }
    invs.push(inv);
  }
  const refusal = matchList(invs, roots, undefined, "");
  if (refusal) throw refusalError(refusal);
}

/** One line per recorded invocation, indented by depth (for logs and tests). */
export function describeAuth(entries: readonly xdr.SorobanAuthorizationEntry[]): string {
  const lines: string[] = [];
  const walk = (inv: Inv, depth: number) => {
    lines.push(`${"  ".repeat(depth)}${renderInv(inv)}`);
    for (const s of inv.subs) walk(s, depth + 1);
  };
  for (const e of entries) {
    const creds = e.credentials;
    const who = credentialsAddress(creds);
    lines.push(`[${creds.type.replace(/^sorobanCredentials/, "")}${who ? ` ${who}` : ""}]`);
    walk(decode(e.rootInvocation), 1);
  }
  return lines.join("\n");
}

function refusalError(r: Refusal): UnexpectedAuthError {
  return new UnexpectedAuthError(r.reason, {
    contract: r.inv.contract,
    fn: r.inv.fn,
    path: r.path,
    invocation: renderInv(r.inv),
  });
}

function decode(inv: xdr.SorobanAuthorizedInvocation): Inv {
  const f = inv.function;
  const subs = inv.subInvocations.map(decode);
  if (f.type !== "sorobanAuthorizedFunctionTypeContractFn") {
    return { contract: "", fn: "create_contract", args: [], subs, create: true };
  }
  const c = f.contractFn;
  return {
    contract: scAddressString(c.contractAddress),
    fn: String(c.functionName),
    args: c.args,
    subs,
    create: false,
  };
}

/** The address of address-type credentials (undefined for source-account credentials). */
function credentialsAddress(c: xdr.SorobanCredentials): string | undefined {
  switch (c.type) {
    case "sorobanCredentialsAddress":
      return scAddressString(c.address.address);
    case "sorobanCredentialsAddressV2":
      return scAddressString(c.addressV2.address);
    case "sorobanCredentialsAddressWithDelegates":
      return scAddressString(c.addressWithDelegates.addressCredentials.address);
    default:
      return undefined;
  }
}

function matchNode(
  inv: Inv,
  pat: AuthCall,
  parent: string | undefined,
  path: string,
): Refusal | undefined {
  const here = path ? `${path} › ${label(inv)}` : label(inv);
  if (inv.create) {
    return { reason: "a create-contract authorization is never signed", inv, path: here };
  }
  const site: CallSite = { contract: inv.contract, fn: inv.fn, parent };
  const why = pat.args(inv.args, site);
  if (why) return { reason: why, inv, path: here, closeness: progressOf(pat.args, inv.args, site) };
  const below = matchList(inv.subs, pat.subs ?? [], inv.contract, here);
  return below && { ...below, closeness: Infinity };
}

function sameTarget(inv: Inv, pat: AuthCall): boolean {
  if (inv.create || inv.fn !== pat.fn) return false;
  return typeof pat.contract === "string"
    ? pat.contract === inv.contract
    : pat.contract.test(inv.contract);
}

/**
 * Matches sibling invocations against sibling patterns: each invocation needs a pattern it
 * satisfies, each pattern used at most `max` times (a small backtracking search: a tree has a
 * handful of siblings).
 */
function matchList(
  invs: readonly Inv[],
  pats: readonly AuthCall[],
  parent: string | undefined,
  path: string,
): Refusal | undefined {
  const candidates: number[][] = [];
  for (const inv of invs) {
    const ok: number[] = [];
    // The refusal of the pattern the call came closest to (the most telling reason).
    let first: Refusal | undefined;
    for (let j = 0; j < pats.length; j++) {
      if (!sameTarget(inv, pats[j])) continue;
      const r = matchNode(inv, pats[j], parent, path);
      if (!r) ok.push(j);
      else if (!first || (r.closeness ?? 0) > (first.closeness ?? 0)) first = r;
    }
    if (ok.length === 0) {
      if (first) return first;
      const here = path ? `${path} › ${label(inv)}` : label(inv);
      if (inv.create) {
        return { reason: "a create-contract authorization is never signed", inv, path: here };
      }
      const allowed = [...new Set(pats.map(describePattern))];
      return {
        reason: `unexpected call: ${
          allowed.length === 0
            ? "no authorized sub-invocation was planned here"
            : `only ${allowed.join(", ")} ${allowed.length === 1 ? "was" : "were"} planned here`
        }`,
        inv,
        path: here,
      };
    }
    candidates.push(ok);
  }
  const tooMany = (i: number): Refusal => {
    const inv = invs[i];
    const allowed = candidates[i].map((j) => pats[j].max ?? 1).reduce((a, b) => a + b, 0);
    return {
      reason: `one ${inv.fn} more than planned here (at most ${allowed})`,
      inv,
      path: path ? `${path} › ${label(inv)}` : label(inv),
    };
  };
  const used = pats.map(() => 0);
  // More calls than every allowed call's `max` together can never fit: name the first that
  // overflows (first fit). This also bounds the search below to a handful of siblings, whatever
  // a hostile contract records.
  const capacity = pats.reduce((n, p) => n + (p.max ?? 1), 0);
  if (invs.length > capacity) {
    for (let i = 0; i < invs.length; i++) {
      const j = candidates[i].find((j) => used[j] < (pats[j].max ?? 1));
      if (j === undefined) return tooMany(i);
      used[j]++;
    }
  }
  let deepest = 0;
  const assign = (i: number): boolean => {
    deepest = Math.max(deepest, i);
    if (i === invs.length) return true;
    for (const j of candidates[i]) {
      if (used[j] >= (pats[j].max ?? 1)) continue;
      used[j]++;
      if (assign(i + 1)) return true;
      used[j]--;
    }
    return false;
  };
  return assign(0) ? undefined : tooMany(deepest);
}

function describePattern(p: AuthCall): string {
  return `${p.fn} on ${typeof p.contract === "string" ? p.contract : p.contract.describe}`;
}

function label(inv: Inv): string {
  return inv.fn;
}

function renderInv(inv: Inv): string {
  if (inv.create) return "create_contract(…)";
  return `${inv.contract}.${inv.fn}(${inv.args.map(render).join(", ")})`;
}

function scAddressString(a: xdr.ScAddress): string {
  try {
    return Address.fromScAddress(a).toString();
  } catch {
    return a.type;
  }
}

function addressOf(v: xdr.ScVal): string | undefined {
  if (v.type !== "scvAddress") return undefined;
  return scAddressString(v.address);
}

function i128Of(v: xdr.ScVal): bigint | undefined {
  if (v.type !== "scvI128") return undefined;
  return scValToNative(v) as bigint;
}

/** A short human rendering of a value (addresses in full, numbers as decimals). */
function render(v: xdr.ScVal): string {
  let s: string;
  try {
    s = JSON.stringify(
      scValToNative(v),
      (_k, x) => (typeof x === "bigint" ? x.toString() : x),
    ) ?? "void";
    s = s.replace(/^"(.*)"$/, "$1");
  } catch {
    s = v.type;
  }
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}
