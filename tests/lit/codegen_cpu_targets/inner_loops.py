#!/usr/bin/env python3
"""Summarizes the innermost loops of a kernel's disassembly.

usage: llvm-objdump-19 -d KERNEL.so | inner_loops.py

Reads `llvm-objdump -d` text (aarch64 or riscv64) from stdin. A loop is
a branch back to an address at or before it (the range target..branch);
an innermost loop holds no other loop. For each innermost loop, in
address order, prints one line:
  loop N insns: FORM=COUNT ... dests=D [vtype=e32,mK ...]
FORM counts the vector fused multiply-adds by form (fmla.4s.lane:
`fmla vd.4s, vn.4s, vm.s[i]`; fmla.4s: all three registers .4s;
sdot.4s / udot.4s: the int8 dot products `sdot vd.4s, vn.16b, vm.16b`,
.lane with `vm.4b[i]`;
vfmacc.vf / vfmacc.vv / vfmadd.vf / vfmadd.vv / vfnmsac... as written),
D is how many distinct registers those FMAs write (the register tile's
accumulators when the loop is a microkernel's), and vtype lists the
RVV element width and LMUL the loop's vset{i}vli set. A loop without
vector FMAs prints `none`. A last line `vtypes: e32,mK ...` lists those
of the whole object (the loops' own are often hoisted out of them)."""
import re
import sys

INSN = re.compile(r"^\s*([0-9a-f]+):\s+(?:[0-9a-f]{2,8}\s+)+\s*([a-z][\w.]*)\s*(.*)$")
TARGET = re.compile(r"0x([0-9a-f]+)\s*<")
BRANCH = re.compile(r"^(b|b\.\w+|cbn?z|tbn?z|j|c\.j|c\.beqz|c\.bnez|beqz|bnez|blez|bgez|bltz|bgtz|"
                    r"beq|bne|blt|bge|bltu|bgeu|bgt|ble|bgtu|bleu)$")
AARCH64_FMA = re.compile(r"^(fmla)$")
AARCH64_DOT = re.compile(r"^([su]dot)$")
RVV_FMA = re.compile(r"^(vf(?:n?m(?:acc|add|sac|sub)))\.(vf|vv)$")


def fma_form(mn, ops):
    if AARCH64_FMA.match(mn):
        regs = [o.strip() for o in ops.split(",")]
        if len(regs) == 3 and regs[0].endswith(".4s"):
            return "fmla.4s.lane" if re.search(r"\.s\[\d\]$", regs[2]) else "fmla.4s"
        return None
    if AARCH64_DOT.match(mn):
        regs = [o.strip() for o in ops.split(",")]
        if len(regs) == 3 and regs[0].endswith(".4s"):
            return mn + (".4s.lane" if re.search(r"\.4b\[\d\]$", regs[2]) else ".4s")
        return None
    m = RVV_FMA.match(mn)
    return mn if m else None


def main():
    insns = []
    for line in sys.stdin:
        m = INSN.match(line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2), m.group(3).split("<")[0].strip()
                          if "<" in m.group(3) else m.group(3).strip(), m.group(3)))
    loops = []
    for addr, mn, _, raw in insns:
        t = TARGET.search(raw)
        if BRANCH.match(mn) and t and int(t.group(1), 16) <= addr:
            loops.append((int(t.group(1), 16), addr))
    inner = [l for l in loops
             if not any(o != l and l[0] <= o[0] and o[1] <= l[1] for o in loops)]
    for lo, hi in sorted(set(inner)):
        body = [i for i in insns if lo <= i[0] <= hi]
        forms, dests, vtypes = {}, set(), []
        for _, mn, ops, _ in body:
            f = fma_form(mn, ops)
            if f:
                forms[f] = forms.get(f, 0) + 1
                dests.add(ops.split(",")[0].strip().split(".")[0])
            if mn in ("vsetvli", "vsetivli"):
                v = re.search(r"(e\d+),\s*(mf?\d)", ops)
                if v and v.group(1) + "," + v.group(2) not in vtypes:
                    vtypes.append(v.group(1) + "," + v.group(2))
        text = " ".join(f"{k}={forms[k]}" for k in sorted(forms)) or "none"
        extra = f" dests={len(dests)}" if forms else ""
        if vtypes:
            extra += " vtype=" + " ".join(vtypes)
        print(f"loop {len(body)} insns: {text}{extra}")
    every = []
    for _, mn, ops, _ in insns:
        v = re.search(r"(e\d+),\s*(mf?\d)", ops) if mn in ("vsetvli", "vsetivli") else None
        if v and v.group(1) + "," + v.group(2) not in every:
            every.append(v.group(1) + "," + v.group(2))
    print("vtypes: " + (" ".join(every) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
