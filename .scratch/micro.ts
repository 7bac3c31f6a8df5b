import { counterWasm } from "../tests/wasm/contracts.ts";
import { processModule } from "../localnet/host/wasm/module.ts";
const w = await counterWasm();
const p = processModule(w, 23);
for (const [name, bytes] of [["raw", w], ["instrumented", p.instrumented]] as const) {
  const m = new WebAssembly.Module(bytes as BufferSource);
  const imports: any = {};
  for (const imp of WebAssembly.Module.imports(m)) (imports[imp.module] ??= {})[imp.name] = (..._a: bigint[]) => 2n;
  let t = performance.now();
  const N = 5000;
  for (let i = 0; i < N; i++) new WebAssembly.Instance(m, imports);
  const inst = (performance.now() - t) / N;
  const ins = new WebAssembly.Instance(m, imports);
  const f = (ins.exports as any).increment;
  if ((ins.exports as any).__vigil_fuel) (ins.exports as any).__vigil_fuel.value = 1000000000000n;
  t = performance.now();
  for (let i = 0; i < N; i++) f((3n << 32n) | 4n);
  const call = (performance.now() - t) / N;
  console.log(name, "instantiate µs", (inst * 1000).toFixed(1), "call µs", (call * 1000).toFixed(1));
}
