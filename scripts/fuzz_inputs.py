#!/usr/bin/env python3
# fuzz_inputs.py: mutates the shipped models at random (seeded) and checks that gpmc answers every mutant
# with exit status 0, or 1 and a diagnostic: never a crash, a signal or a silent failure.
# Usage (from the repository root, after building): python3 scripts/fuzz_inputs.py SEED COUNT
import os, random, subprocess, sys
os.makedirs("fuzz_work", exist_ok=True)
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
srcs = [open(f,'rb').read() for f in ['machines/titan.gpm','machines/summit.gpm','apps/jacobi2d.gpm','apps/bandwidth.gpm','stdlib/transfer.gpm']]
tokens = [b'(', b')', b'{', b'}', b'[', b']', b'*', b'/', b'^', b'-', b'+', b'1', b'0', b'GB/s', b'us', b'if', b'then', b'else', b'param', b'let', b'fn', b'link', b'<->', b'->', b'.', b',', b';', b'=', b'g[*]', b'"', b'/*', b'//', b'\xff', b'\x00', b'run', b'copy', b'iterate', b'x', b'n', b'1e400', b'-1']
bad = 0
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 300):
    s = bytearray(random.choice(srcs))
    for _ in range(random.randint(1, 6)):
        op = random.random()
        pos = random.randrange(len(s) + 1)
        if op < 0.4 and len(s) > 0:
            del s[pos:pos + random.randint(1, 20)]
        elif op < 0.8:
            s[pos:pos] = random.choice(tokens)
        else:
            a = random.randrange(len(s) + 1); b = random.randrange(len(s) + 1)
            s[pos:pos] = s[min(a,b):max(a,b)][:200]
    open('fuzz_work/m.gpm','wb').write(s)
    for args in (['check','fuzz_work/m.gpm'], ['eval','fuzz_work/m.gpm','apps/jacobi2d.gpm'], ['eval','machines/summit.gpm','fuzz_work/m.gpm'], ['dump-ast','fuzz_work/m.gpm']):
        r = subprocess.run(['build/gpmc'] + args, capture_output=True, timeout=60)
        if r.returncode == 1 and b"error:" not in r.stderr:
            print("silent failure", args, r.stderr[-200:]); bad += 1
        if r.returncode not in (0, 1):
            bad += 1
            open(f'fuzz_work/crash{bad}.gpm','wb').write(s)
            print('exit', r.returncode, args, r.stderr[-300:])
print('done, bad =', bad)
sys.exit(1 if bad else 0)
