"""cudatrace why --json against glibc's own loader, for the CUDA libraries
real builds ask for, inside the trixie root (tests/real/real-builds-why):
not a test itself.

python3 why-compare.py CUDATRACE LD_LIBRARY_PATH OBJECT:NAME...

For each OBJECT:NAME, NAME being one of OBJECT's own DT_NEEDED entries:
what the loader maps for NAME when it loads OBJECT, asked as ldd asks it
(LD_TRACE_LOADED_OBJECTS=1 /lib64/ld-linux-x86-64.so.2 OBJECT, with that
LD_LIBRARY_PATH: the "NAME => PATH" line, or "NAME => not found"), against
cudatrace why --json --from OBJECT NAME with the same LD_LIBRARY_PATH: its
path (null when not found). Prints one line per pair, "same" or
"DIFFERENT", with why's rule and the CUDA version it gives the file, then
"N names compared, N different"; exit 1 when one differs. The why
documents are written to DIR/why-N.json when WHY_COMPARE_KEEP=DIR is set.
"""
import json
import os
import re
import subprocess
import sys

RTLD = '/lib64/ld-linux-x86-64.so.2'
ct, llp, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
keep = os.environ.get('WHY_COMPARE_KEEP')
env = dict(os.environ)
env.pop('LD_LIBRARY_PATH', None)
if llp:
    env['LD_LIBRARY_PATH'] = llp
line_re = re.compile(r'^\s+(\S+) => (not found|(\S+) \(0x[0-9a-f]+\))$')
traced = {}


def loader(obj):
    if obj not in traced:
        e = dict(env, LD_TRACE_LOADED_OBJECTS='1')
        out = subprocess.run([RTLD, obj], env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True).stdout
        found = {}
        for m in map(line_re.match, out.splitlines()):
            if m and m.group(1) not in found:
                found[m.group(1)] = m.group(3)  # None: not found
        traced[obj] = found
    return traced[obj]


different = 0
for n, pair in enumerate(pairs):
    obj, name = pair.rsplit(':', 1)
    theirs = loader(obj).get(name, 'absent')
    out = subprocess.run([ct, 'why', '--json', '--from', obj, name], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True).stdout
    if keep:
        with open(os.path.join(keep, 'why-%d.json' % n), 'w') as f:
            f.write(out)
    d = json.loads(out)
    ours = d.get('path')
    cuda = d.get('cuda') or {}
    same = ours == theirs
    different += not same
    print('%-9s %s from %s => %s [%s] %s' % (
        'same' if same else 'DIFFERENT', name, os.path.basename(obj), ours or 'not found',
        d.get('found_via'), '' if not ours else 'CUDA library, version %s' % cuda.get('version')
        if cuda.get('library') else 'not a CUDA library'))
    if not same:
        print('          the loader: %s' % (theirs or 'not found'))
print('%d names compared, %d different' % (len(pairs), different))
sys.exit(1 if different else 0)
