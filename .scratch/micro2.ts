import { counterWasm } from "../tests/wasm/contracts.ts";
import { processModule } from "../localnet/host/wasm/module.ts";
const w = await counterWasm();
const p = processModule(w, 23);
const m = new WebAssembly.Module(p.instrumented as BufferSource);
const imports: any = {};
for (const imp of WebAssembly.Module.imports(m)) (imports[imp.module] ??= {})[imp.name] = (..._a: bigint[]) => 2n;
const N = 3000;
let t = performance.now();
for (let i = 0; i < N; i++) { const ins = new WebAssembly.Instance(m, imports); (ins.exports as any).__vigil_fuel.value = 10n**12n; (ins.exports as any).increment((3n << 32n) | 4n); }
console.log("fresh instance+call µs", ((performance.now() - t) / N * 1000).toFixed(1));
const ins = new WebAssembly.Instance(m, imports);
const mem = (ins.exports as any).memory as WebAssembly.Memory;
const snap = new Uint8Array(mem.buffer).slice();
t = performance.now();
for (let i = 0; i < N; i++) { new Uint8Array(mem.buffer).set(snap); (ins.exports as any).__vigil_fuel.value = 10n**12n; (ins.exports as any).increment((3n << 32n) | 4n); }
console.log("reset 64KiB + call µs", ((performance.now() - t) / N * 1000).toFixed(1));
