"""cuda-pathfinder's load_nvidia_dynamic_lib against cudatrace's loader
model (tests/pip/pathfinder-oracle). Not a test itself.

python3 pathfinder_oracle.py PYTHON CUDATRACE

Runs on the machine it is started on (tests/pip/lib.sh's inns). For every
library name cuda.pathfinder supports on Linux (SUPPORTED_LIBNAMES), in a
fresh PYTHON each: load_nvidia_dynamic_lib(name) -> the file it loaded and
how it found it (site-packages, conda, system, CUDA_HOME), or that it
found none. For each file found, cudatrace why --json SONAME (the file's
name) says what a program that asks the loader for that soname gets:
  same       the same file (same device and inode);
  explained  another file, or none, and why lists pathfinder's file among
             the copies it knows of (shadowed or "elsewhere"): the reason a
             program using the loader gets another one is in its answer;
  DIFFERENT  anything else.
Prints a line per name, then "N found by cuda.pathfinder: N same, N
explained, N different"; exit 1 when one differs.
"""
import json
import os
import subprocess
import sys

py, ct = sys.argv[1], sys.argv[2]
probe = r'''
import json, sys
from cuda.pathfinder import load_nvidia_dynamic_lib
from cuda.pathfinder._dynamic_libs.supported_nvidia_libs import SUPPORTED_LIBNAMES
if sys.argv[1] == "--names":
    print(json.dumps(sorted(SUPPORTED_LIBNAMES)))
    sys.exit(0)
try:
    l = load_nvidia_dynamic_lib(sys.argv[1])
    print(json.dumps({"path": l.abs_path, "via": l.found_via}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__ + ": " + str(e).splitlines()[0]}))
'''


def same_file(a, b):
    try:
        sa, sb = os.stat(a), os.stat(b)
        return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)
    except OSError:
        return False


names = json.loads(subprocess.run([py, '-c', probe, '--names'], stdout=subprocess.PIPE,
                                  universal_newlines=True, check=True).stdout)
found = same = explained = bad = 0
for name in names:
    r = json.loads(subprocess.run([py, '-c', probe, name], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, universal_newlines=True).stdout)
    if 'path' not in r:
        print('%-12s cuda.pathfinder: %s' % (name, r['error'][:110]))
        continue
    found += 1
    soname = os.path.basename(r['path'])
    w = json.loads(subprocess.run([ct, 'why', '--json', soname], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, universal_newlines=True).stdout)
    ours = w.get('path')
    if ours and same_file(ours, r['path']):
        same += 1
        verdict = 'same'
    else:
        known = [c.get('path') for c in (w.get('copies') or []) + (w.get('shadowed') or [])]
        if any(k and same_file(k, r['path']) for k in known):
            explained += 1
            verdict = 'explained'
        else:
            bad += 1
            verdict = 'DIFFERENT'
    print('%-12s %-9s pathfinder %s (%s); loader: %s' % (
        name, verdict, r['path'], r['via'],
        '%s [%s]' % (ours, w.get('found_via')) if ours else 'not found'))
print('%d found by cuda.pathfinder: %d same, %d explained, %d different' % (found, same, explained, bad))
sys.exit(1 if bad else 0)
