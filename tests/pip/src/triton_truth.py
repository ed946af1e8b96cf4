"""What Triton itself does on this machine, for tests/pip/triton-toolchain:
the ground truth doctor's judgement is checked against. No GPU needed.

python triton_truth.py SCRATCH ARCH...

libcuda: Triton's own libcuda_dirs() (TRITON_LIBCUDA_PATH, else the
         libcuda.so.1 lines of `ldconfig -p`, else LD_LIBRARY_PATH), or its
         assertion ("libcuda.so cannot found!");
link:    Triton's own _build of a one-line C file against those folders
         and its `libraries` (-l:libcuda.so.1), as it builds its launcher;
ptxas ARCH: the ptxas Triton picks for ARCH (get_ptxas: TRITON_PTXAS_PATH
         below sm_90, TRITON_PTXAS_BLACKWELL_PATH from sm_90 on, else its
         wheel's), its release, and whether it compiles a PTX for ARCH.
"""
import os
import subprocess
import sys

scratch, archs = sys.argv[1], sys.argv[2:]
from triton.backends.nvidia import driver  # noqa: E402
from triton.backends.nvidia.compiler import get_ptxas  # noqa: E402
from triton.runtime.build import _build  # noqa: E402

try:
    dirs = driver.libcuda_dirs()
    print('libcuda: ok %s' % ':'.join(dirs))
except AssertionError as e:
    dirs = None
    print('libcuda: fails %s' % str(e).splitlines()[0])
if dirs is not None:
    src = os.path.join(scratch, 'probe.c')
    with open(src, 'w') as f:
        f.write('int cudatrace_probe(void) { return 0; }\n')
    try:
        _build('probe', src, scratch, dirs, [], driver.libraries, [])
        print('link: ok -l:%s' % ' -l:'.join(driver.libraries))
    except subprocess.CalledProcessError:  # the linker's own words went to stderr
        print('link: fails -l:%s' % ' -l:'.join(driver.libraries))
for a in archs:
    n = int(a[3:].rstrip('af'))
    tool = get_ptxas(n)
    release = subprocess.run([tool.path, '--version'], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout.split('release ')[-1].split(',')[0]
    ptx = os.path.join(scratch, 'k.ptx')
    with open(ptx, 'w') as f:
        # The lowest PTX ISA that knows the arch (8.7 for sm_120a, CUDA 12.8).
        isa = '8.7' if n >= 120 else '8.6' if n >= 100 else '8.0' if n >= 90 else '7.0'
        f.write('.version %s\n.target %s\n.address_size 64\n.visible .entry k() { ret; }\n' % (isa, a))
    r = subprocess.run([tool.path, '--gpu-name', a, ptx, '-o', os.path.join(scratch, 'k.cubin')],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    print('ptxas %s: %s %s %s' % (a, tool.path, release, 'ok' if r.returncode == 0 else
                                 'fails ' + r.stdout.strip().splitlines()[-1]))
