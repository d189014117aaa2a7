// Runs one ONNX model on ONNX Runtime's CPU execution provider (npm
// onnxruntime-node) with inputs from .npy files and writes the requested
// outputs as .npy files plus OUTDIR/outputs.json (one list a sample, each
// [{name, file}] in request order; every graph output when none is
// named). --sample ends one sample's inputs and starts the next: the
// samples run in turn on one session, so a caller with many pays Node's
// start, the library's load and the session's creation once. kiln_ort.py
// drives it; it reads and writes the little-endian numeric .npy dtypes
// ONNX Runtime's tensors take (f32/f64/f16 as raw bits, i8-i64, u8-u64,
// bool), C order only, and refuses anything else by name.
//
// usage: node ort_run.js NODE_MODULES MODEL.onnx OUTDIR THREADS OPTIMIZE(0|1)
//            [--input=NAME=FILE.npy]... [--sample [--input=NAME=FILE.npy]...]...
//            [--output=NAME]...
'use strict';
const fs = require('fs');
const path = require('path');

// numpy descr -> [ORT type, TypedArray]; float16 travels as its bits.
const DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<f2': ['float16', Uint16Array],
  '|i1': ['int8', Int8Array], '<i2': ['int16', Int16Array], '<i4': ['int32', Int32Array],
  '<i8': ['int64', BigInt64Array], '|u1': ['uint8', Uint8Array],
  '<u2': ['uint16', Uint16Array], '<u4': ['uint32', Uint32Array],
  '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

function readNpy(ort, file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 0, 6) !== '\x93NUMPY') throw new Error(file + ': not a .npy file');
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const start = major === 1 ? 10 : 12;
  const header = b.toString('latin1', start, start + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header);
  const fortran = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) throw new Error(file + ': unreadable .npy header');
  if (fortran[1] === 'True') throw new Error(file + ': Fortran-order arrays are not supported');
  const t = DTYPES[descr[1]];
  if (!t) throw new Error(file + ': dtype ' + descr[1] + ' is not supported');
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const off = start + hlen;
  const bytes = new Uint8Array(b.length - off);
  bytes.set(b.subarray(off));  // a fresh, aligned buffer
  const data = new t[1](bytes.buffer, 0, bytes.length / t[1].BYTES_PER_ELEMENT);
  return new ort.Tensor(t[0], t[0] === 'bool' ? Uint8Array.from(data) : data, dims);
}

function writeNpy(file, tensor) {
  const entry = Object.entries(DTYPES).find(([, v]) => v[0] === tensor.type);
  if (!entry) throw new Error('output type ' + tensor.type + ' cannot be written as .npy');
  const shape = tensor.dims.length === 1 ? '(' + tensor.dims[0] + ',)' : '(' + tensor.dims.join(', ') + ')';
  let header = "{'descr': '" + entry[0] + "', 'fortran_order': False, 'shape': " + shape + ', }';
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1;
  pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  const d = tensor.data;
  const body = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
  fs.writeFileSync(file, Buffer.concat([pre, Buffer.from(header, 'latin1'), body]));
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length < 5) {
    console.error('usage: node ort_run.js NODE_MODULES MODEL OUTDIR THREADS OPTIMIZE [--input=NAME=FILE]... [--output=NAME]...');
    process.exit(2);
  }
  const [modules, model, outdir, threads, optimize] = argv;
  const ort = require(path.join(modules, 'onnxruntime-node'));
  // Each sample's inputs as [name, file] pairs; read only when it runs.
  const samples = [[]];
  const wanted = [];
  for (const a of argv.slice(5)) {
    if (a === '--sample') {
      samples.push([]);
    } else if (a.startsWith('--input=')) {
      const s = a.slice(8);
      const eq = s.lastIndexOf('=');
      if (eq <= 0) throw new Error('--input wants NAME=FILE.npy, got ' + a);
      samples[samples.length - 1].push([s.slice(0, eq), s.slice(eq + 1)]);
    } else if (a.startsWith('--output=')) {
      wanted.push(a.slice(9));
    } else {
      throw new Error('unknown argument ' + a);
    }
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: optimize === '1' ? 'all' : 'disabled',
  });
  const names = wanted.length ? wanted : session.outputNames;
  const index = [];
  for (let k = 0; k < samples.length; k++) {
    const feeds = {};
    for (const [name, file] of samples[k]) feeds[name] = readNpy(ort, file);
    const results = await session.run(feeds, names);
    index.push(names.map((name, i) => {
      const file = 's' + k + '_out' + i + '.npy';
      writeNpy(path.join(outdir, file), results[name]);
      return { name, file };
    }));
  }
  fs.writeFileSync(path.join(outdir, 'outputs.json'), JSON.stringify(index));
}

main().catch((e) => {
  console.error('ort_run: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
