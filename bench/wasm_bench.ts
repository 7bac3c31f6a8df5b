/**
 * Simulations per second over HTTP JSON-RPC for the same small contract call on a Wasm
 * contract (the WAT counter of the tests: instance + persistent storage, `require_auth`, an
 * event) and on the AssemblyScript counter fixture (`testing/contracts/counter/`: the
 * same work per call, a per-user key, built with the contract SDK), side by side in one run.
 *
 * The node runs in a child process (`wasm_bench.ts serve`, one core: Deno runs contracts on
 * one thread); the load generator posts the same `simulateTransaction` body with a few
 * requests in flight. Usage: `deno run -A bench/wasm_bench.ts [--seconds=5] [--concurrency=4]`.
 */
import {
  Address,
  Keypair,
  nativeToScVal,
  Operation,
  rpc,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { startLocalnet } from "@vigil/localnet/node";
import { counterWasm } from "@vigil/testing/wasm/contracts";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { deployWasm } from "@vigil/testing/wasm/deploy_helpers";
import { denoRunArgs } from "@vigil/util/deno_child";

const arg = (name: string, dflt: number) => {
  const a = Deno.args.find((x) => x.startsWith(`--${name}=`));
  return a ? Number(a.split("=")[1]) : dflt;
};

async function serve(): Promise<void> {
  const net = await startLocalnet({ port: 0, ledgerMs: 0 });
  const admin = Keypair.random();
  await net.fund(admin.publicKey());
  const server = new rpc.Server(net.rpcUrl, { allowHttp: true });
  const node = {
    server,
    networkPassphrase: net.networkPassphrase,
    confirm: (h: string) => server.pollTransaction(h, { attempts: 400, sleepStrategy: () => 25 }),
  } as never;
  const adminVal = nativeToScVal(Address.fromString(admin.publicKey()));
  const wasmId = await deployWasm(node, admin, await counterWasm(), [adminVal]);
  const asId = await deployFixture(net, "counter", [admin.publicKey()]);
  const account = await server.getAccount(admin.publicKey());
  const body = (contract: string, args: xdr.ScVal[]) => {
    const tx = new TransactionBuilder(account, {
      fee: "100",
      networkPassphrase: net.networkPassphrase,
    }).addOperation(
      Operation.invokeContractFunction({
        contract,
        function: "increment",
        args,
      }),
    ).setTimeout(0).build();
    return JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "simulateTransaction",
      params: { transaction: tx.toXDR() },
    });
  };
  console.log(JSON.stringify({
    rpcUrl: net.rpcUrl,
    wasm: body(wasmId, [xdr.ScVal.scvU32(3)]),
    as: body(asId, [adminVal, xdr.ScVal.scvU32(3)]),
  }));
  await new Promise(() => {});
}

async function load(url: string, body: string, seconds: number, concurrency: number) {
  // Warm-up (JIT, compiled-module cache).
  for (let i = 0; i < 50; i++) {
    const r = await fetch(url, { method: "POST", body });
    const j = await r.json();
    if (!j.result || j.result.error) throw new Error(`simulation failed: ${JSON.stringify(j)}`);
  }
  let n = 0;
  const lat: number[] = [];
  const end = performance.now() + seconds * 1000;
  let instructions = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const r = await fetch(url, { method: "POST", body });
        const j = await r.json();
        lat.push(performance.now() - t);
        if (!j.result || j.result.error) throw new Error("simulation failed");
        instructions = Number(
          // deno-lint-ignore no-explicit-any
          (xdr.SorobanTransactionData.fromXDR(j.result.transactionData, "base64") as any)
            .resources.instructions,
        );
        n++;
      }
    }),
  );
  lat.sort((a, b) => a - b);
  return {
    perSec: n / seconds,
    p50: lat[Math.floor(lat.length * 0.5)],
    p99: lat[Math.floor(lat.length * 0.99)],
    instructions,
  };
}

if (Deno.args[0] === "serve") {
  await serve();
} else {
  const seconds = arg("seconds", 5);
  const concurrency = arg("concurrency", 4);
  const child = new Deno.Command(Deno.execPath(), {
    // From the cache only, with the lock file: a benchmark never downloads anything either.
    args: denoRunArgs(new URL(import.meta.url), ["serve"]),
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (!buf.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("server exited");
    buf += value;
  }
  const info = JSON.parse(buf.split("\n")[0]);
  try {
    const rows: [string, Awaited<ReturnType<typeof load>>][] = [];
    for (
      const [name, body] of [
        ["Wasm (WAT counter)", info.wasm],
        ["Wasm (AssemblyScript counter fixture)", info.as],
      ]
    ) {
      rows.push([name, await load(info.rpcUrl, body, seconds, concurrency)]);
    }
    const load1 = Deno.loadavg()[0].toFixed(1);
    console.log(
      `simulateTransaction of counter.increment(…, 3) over HTTP, ${seconds} s each, ${concurrency} in flight, load average ${load1} on ${navigator.hardwareConcurrency} cores`,
    );
    console.log("| contract | simulations/s | p50 ms | p99 ms | reported instructions |");
    console.log("| --- | ---: | ---: | ---: | ---: |");
    for (const [name, r] of rows) {
      console.log(
        `| ${name} | ${r.perSec.toFixed(0)} | ${r.p50.toFixed(2)} | ${
          r.p99.toFixed(2)
        } | ${r.instructions} |`,
      );
    }
  } finally {
    child.kill();
    await child.status;
    reader.releaseLock();
    await child.stdout.cancel().catch(() => {});
  }
}
