/**
 * The keeper's only door to the chain: a `@stellar/stellar-sdk` `rpc.Server` whose HTTP
 * transport is replaced by a counted one.
 *
 * Every JSON-RPC request the SDK makes through {@link ChainRpc.server} goes through
 * {@link ChainRpc}'s transport, which counts requests and failures per JSON-RPC method (the
 * `keeper_rpc_requests_total{method}` metric and the benchmark figures), applies a per-request
 * timeout, and aborts everything in flight on {@link ChainRpc.close} so shutdown is clean.
 *
 * The timed transport itself ({@link postJsonRpc}, {@link timedServer}) is the one the web's
 * page reads use too, with their page deadline as an extra abort signal.
 *
 * @module
 */
import { Keypair, rpc, xdr } from "@stellar/stellar-sdk";
import { redactUrlsIn } from "@vigil/util/url_redact";
import { RpcError } from "./errors.ts";

/** Called after every JSON-RPC request (for metrics). */
export type RequestHook = (method: string, ok: boolean, ms: number) => void;

/** Options of {@link ChainRpc}. */
export interface ChainRpcOptions {
  /** The network passphrase transactions are signed for. */
  networkPassphrase: string;
  /** Per-request timeout in ms (default 30 000). */
  timeoutMs?: number;
  /** Observer of every request, e.g. the metrics counter. */
  onRequest?: RequestHook;
}

/**
 * A counted Soroban RPC client. Use {@link ChainRpc.server} for any SDK call: it is a normal
 * `rpc.Server`, so `getLedgerEntries`, `simulateTransaction`, `getEvents`, … work unchanged.
 */
export class ChainRpc {
  /** The RPC endpoint. */
  readonly url: string;
  /** The network passphrase. */
  readonly networkPassphrase: string;
  /** The SDK server; all its requests are counted. */
  readonly server: rpc.Server;
  readonly #timeoutMs: number;
  readonly #hooks: RequestHook[] = [];
  readonly #counts = new Map<string, number>();
  readonly #failures = new Map<string, number>();
  readonly #inFlight = new Set<AbortController>();
  #closed = false;

  constructor(url: string, opts: ChainRpcOptions) {
    this.url = url;
    this.networkPassphrase = opts.networkPassphrase;
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    if (opts.onRequest) this.#hooks.push(opts.onRequest);
    this.server = withPost(
      new rpc.Server(url, { allowHttp: url.startsWith("http:") }),
      (u, body) => this.#post(u, body),
    );
  }

  /** Adds a request observer (e.g. metrics wired after construction). */
  onRequest(hook: RequestHook): void {
    this.#hooks.push(hook);
  }

  /** Requests made so far, by JSON-RPC method. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  /** Failed requests so far, by JSON-RPC method. */
  failures(): Record<string, number> {
    return Object.fromEntries(this.#failures);
  }

  /** Total requests made so far. */
  totalRequests(): number {
    let n = 0;
    for (const v of this.#counts.values()) n += v;
    return n;
  }

  /** Aborts every request in flight and refuses new ones. */
  close(): void {
    this.#closed = true;
    for (const c of this.#inFlight) c.abort(new Error("keeper shutting down"));
    this.#inFlight.clear();
  }

  /** True after {@link close}. */
  get closed(): boolean {
    return this.#closed;
  }

  async #post(url: string, body: { method?: string }): Promise<{ data: unknown; status: number }> {
    const method = body?.method ?? "unknown";
    if (this.#closed) throw new RpcError(method, "client closed");
    this.#counts.set(method, (this.#counts.get(method) ?? 0) + 1);
    const ctrl = new AbortController();
    this.#inFlight.add(ctrl);
    const t0 = performance.now();
    let ok = false;
    try {
      const res = await postJsonRpc(url, body, { timeoutMs: this.#timeoutMs }, ctrl.signal);
      ok = (res.data as { error?: unknown }).error === undefined;
      return res;
    } finally {
      this.#inFlight.delete(ctrl);
      if (!ok) this.#failures.set(method, (this.#failures.get(method) ?? 0) + 1);
      const ms = performance.now() - t0;
      for (const h of this.#hooks) {
        try {
          h(method, ok, ms);
        } catch { /* a metrics hook must never break a request */ }
      }
    }
  }
}

/** Options of the timed JSON-RPC transport ({@link postJsonRpc}, {@link timedServer}). */
export interface TransportOptions {
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** Read at each request: a signal that aborts it too (a page's shared read deadline). */
  signal?: () => AbortSignal | undefined;
  /** Prefix of error messages (the web's pages say "RPC "). Default none. */
  messagePrefix?: string;
  /** Quote the start of a non-2xx response body in the error (default true). */
  quoteHttpBody?: boolean;
}

/**
 * Posts one JSON-RPC request with a timeout (and `opts.signal`/`signal`, whichever aborts
 * first), returning what the SDK's `httpClient.post` returns. Every failure is an
 * {@link RpcError} whose message never quotes the URL's credentials.
 */
export async function postJsonRpc(
  url: string,
  body: { method?: string },
  opts: TransportOptions,
  signal?: AbortSignal,
): Promise<{ data: unknown; status: number }> {
  const method = body?.method ?? "request";
  const fail = (why: string) => {
    const err = new RpcError(method, redactUrlsIn(why));
    if (opts.messagePrefix) err.message = `${opts.messagePrefix}${err.message}`;
    return err;
  };
  const outer = [signal, opts.signal?.()].filter((s): s is AbortSignal => s !== undefined);
  const gone = outer.find((s) => s.aborted);
  if (gone) throw fail(String((gone.reason as Error)?.message ?? "aborted"));
  const ctrl = new AbortController();
  const timer = setTimeout(
    () => ctrl.abort(new Error(`timeout: no answer within ${opts.timeoutMs} ms`)),
    opts.timeoutMs,
  );
  const onAbort = (e: Event) => ctrl.abort((e.target as AbortSignal).reason);
  for (const s of outer) s.addEventListener("abort", onAbort, { once: true });
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: ctrl.signal,
      });
    } catch (e) {
      // Deno's fetch errors quote the URL, query string included: redacted by fail().
      throw fail(
        ctrl.signal.aborted
          ? String((ctrl.signal.reason as Error)?.message ?? "aborted")
          : e instanceof Error
          ? e.message
          : String(e),
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      throw fail(e instanceof Error ? e.message : String(e));
    }
    if (!res.ok) {
      throw fail(
        `HTTP ${res.status}${opts.quoteHttpBody === false ? "" : `: ${text.slice(0, 200)}`}`,
      );
    }
    try {
      return { data: JSON.parse(text), status: res.status };
    } catch {
      throw fail(
        `invalid JSON response${opts.quoteHttpBody === false ? "" : `: ${text.slice(0, 200)}`}`,
      );
    }
  } finally {
    clearTimeout(timer);
    for (const s of outer) s.removeEventListener("abort", onAbort);
  }
}

/** An `rpc.Server` for `url` whose every request goes through {@link postJsonRpc}. */
export function timedServer(url: string, opts: TransportOptions): rpc.Server {
  return withPost(
    new rpc.Server(url, { allowHttp: url.startsWith("http:") }),
    (u, body) => postJsonRpc(u, body, opts),
  );
}

/**
 * Routes every request of `server` through `post`. The SDK calls `httpClient.post(url, body)`
 * and reads `.data` for every JSON-RPC method (stellar-sdk `rpc/jsonrpc.js` postObject).
 */
function withPost(
  server: rpc.Server,
  post: (url: string, body: { method?: string }) => Promise<{ data: unknown; status: number }>,
): rpc.Server {
  (server as unknown as { httpClient: unknown }).httpClient = { post };
  return withTruthfulAccountErrors(server);
}

/**
 * The SDK's `getAccountEntry` (behind `getAccount`) turns every failure into
 * `Account not found: G…` — an unreachable RPC too, which sends an operator off to fund an account
 * that exists. On a failure this asks once more with `getLedgerEntries`: its own error (the
 * {@link RpcError} of an unreachable RPC) is thrown instead, and `Account not found` only when the
 * RPC answered that there is no such account.
 */
function withTruthfulAccountErrors(server: rpc.Server): rpc.Server {
  const sdkEntry = server.getAccountEntry.bind(server);
  server.getAccountEntry = async (address: string) => {
    try {
      return await sdkEntry(address);
    } catch (err) {
      const key = xdr.LedgerKey.account(
        new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(address).xdrPublicKey() }),
      );
      const res = await server.getLedgerEntries(key);
      if (res.entries.length > 0) {
        throw new Error(
          `cannot read account ${address}: ${
            (err as Error).message.replace(/^Account not found: \S+/, "unexpected ledger entry")
          }`,
        );
      }
      throw new Error(`Account not found: ${address}`);
    }
  };
  return server;
}
