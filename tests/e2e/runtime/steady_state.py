#!/usr/bin/python3
"""e2e.runtime.steady_state: runtime.h promises that steady-state calls
allocate nothing and fault no page; steady_state_check verifies it on
compiled models (samples/cnn.mlir and samples/mlp.mlir always, a host
loop (host_loop_steady_hal.mlir with the handmade kernel KERNEL: each
step allocates a buffer and releases the last one), and
ResNet-18 and MobileNetV2 from bench/models/models.py when python3-torch
and torchvision are installed; without them those two are skipped, said
so) on local-sync and on the pool device with 2 threads.

usage: steady_state.py KILN_COMPILE STEADY_STATE_CHECK SAMPLES_DIR WORK POOL_DEVICE KERNEL"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    compile_, check, samples, work, pool, kernel = sys.argv[1:7]
    os.makedirs(work, exist_ok=True)
    modules = []
    for name in ("cnn", "mlp"):
        out = os.path.join(work, name + ".kiln")
        subprocess.run([compile_, os.path.join(samples, name + ".mlir"), "-o", out],
                       check=True)
        modules.append(out)
    out = os.path.join(work, "host_loop.kiln")
    subprocess.run([compile_, os.path.join(HERE, "host_loop_steady_hal.mlir"), "-o", out,
                    "--substitute-executable=simple_mul_dispatch_0=" + kernel], check=True)
    modules.append(out)
    try:
        import torch
        import torchvision
        sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "models"))
        import models
        for name in ("resnet18", "mobilenet_v2"):
            _, _, onnx = models.export(name, torch, torchvision, work)
            out = os.path.join(work, name + ".kiln")
            subprocess.run([compile_, onnx, "-o", out], check=True)
            modules.append(out)
    except ImportError as e:
        print("note: ResNet-18 and MobileNetV2 skipped: %s (python3-torch, "
              "python3-torchvision: scripts/bootstrap.sh)" % e)
    failed = 0
    for m in modules:
        for device in sorted({"local-sync", pool}):
            r = subprocess.run([check, m, device, "2"], capture_output=True, text=True)
            sys.stdout.write("%s, %s:\n%s%s" % (os.path.basename(m), device,
                                                r.stdout, r.stderr))
            failed += r.returncode != 0
    print("%d of %d checks failed" % (failed, len(modules) * len({"local-sync", pool})))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
