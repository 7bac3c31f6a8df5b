/**
 * The keeper's only door to the chain: a `@stellar/stellar-sdk` `rpc.Server` whose HTTP
 * transport is replaced by a counted one.
 *
 * Every JSON-RPC request the SDK makes through {@link ChainRpc.server} goes through
 * {@link ChainRpc}'s transport, which counts requests and failures per JSON-RPC method (the
 * `keeper_rpc_requests_total{method}` metric and the benchmark figures), applies a per-request
 * timeout, and aborts everything in flight on {@link ChainRpc.close} so shutdown is clean.
 *
 * @module
 */
import { rpc } from "@stellar/stellar-sdk";
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
    this.server = new rpc.Server(url, { allowHttp: url.startsWith("http:") });
    // The SDK calls `httpClient.post(url, body)` and reads `.data` for every JSON-RPC method
    // (stellar-sdk `rpc/jsonrpc.js` postObject); replacing it routes everything through us.
    (this.server as unknown as { httpClient: unknown }).httpClient = {
      post: (u: string, body: { method?: string }) => this.#post(u, body),
    };
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
    const timer = setTimeout(
      () => ctrl.abort(new Error(`timeout after ${this.#timeoutMs} ms`)),
      this.#timeoutMs,
    );
    const t0 = performance.now();
    let ok = false;
    try {
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
          signal: ctrl.signal,
        });
      } catch (err) {
        const reason = ctrl.signal.aborted ? String(ctrl.signal.reason?.message ?? "aborted") : "";
        throw new RpcError(method, reason || (err instanceof Error ? err.message : String(err)));
      }
      const text = await res.text();
      if (!res.ok) throw new RpcError(method, `HTTP ${res.status}: ${text.slice(0, 200)}`);
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw new RpcError(method, `invalid JSON response: ${text.slice(0, 200)}`);
      }
      const e = (data as { error?: { code?: number; message?: string } }).error;
      ok = e === undefined;
      return { data, status: res.status };
    } finally {
      clearTimeout(timer);
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
