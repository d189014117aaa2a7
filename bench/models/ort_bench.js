// Times one ONNX model on ONNX Runtime's CPU execution provider (npm
// onnxruntime-node, which bench_models.py finds through
// tools/ort/kiln_ort.py) the way kiln-bench times a
// module: WARMUP untimed calls, then REPS timed calls, each around one
// session.run (inputs stay put, outputs are allocated per call). Prints
// `median_ms X` and `min_ms X`.
//
// usage: node ort_bench.js NODE_MODULES MODEL.onnx THREADS WARMUP REPS
//            NAME:D0xD1x...:FILE.bin[:int64] ...   (one per input, raw
//            little-endian f32, or int64 where the spec ends in :int64)
'use strict';
const fs = require('fs');
const path = require('path');

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length < 6) {
    console.error('usage: node ort_bench.js NODE_MODULES MODEL THREADS WARMUP REPS NAME:DIMS:FILE...');
    process.exit(2);
  }
  const [modules, model, threads, warmup, reps] = argv;
  const ort = require(path.join(modules, 'onnxruntime-node'));
  const feeds = {};
  for (const spec of argv.slice(5)) {
    const [name, dims, file, type] = spec.split(':');
    const bytes = fs.readFileSync(file);
    const shape = dims.split('x').map(Number);
    feeds[name] = type === 'int64'
      ? new ort.Tensor('int64', new BigInt64Array(Uint8Array.from(bytes).buffer), shape)
      : new ort.Tensor('float32', new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4), shape);
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const samples = [];
  for (let i = 0; i < Number(warmup) + Number(reps); ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    const t1 = process.hrtime.bigint();
    if (i >= Number(warmup)) samples.push(Number(t1 - t0) / 1e6);
  }
  samples.sort((a, b) => a - b);
  const n = samples.length;
  const median = n % 2 ? samples[(n - 1) / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
  console.log('median_ms ' + median);
  console.log('min_ms ' + samples[0]);
}

main().catch((e) => {
  console.error('ort_bench: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
