"""The comparison with NVIDIA's cuobjdump, shared by tests/e2e/cuobjdump-oracle
(fixtures, the toolkit's libraries) and tests/real/real-builds-scan*
(Debian's third-party CUDA builds): not a test itself (not executable).

python3 cuobjdump-compare.py [--known-sections] [--variants] CUOBJDUMP CUDATRACE FILE...

For each FILE, the images cuobjdump --list-elf --list-ptx prints, with and
without -all (ELF or PTX and the arch, in order), must be the images that
cudatrace scan --json lists in the sections cuobjdump reads: .nv_fatbin
and __nv_relfatbin (-all), or the file itself (a bare fatbin or cubin).
What the default scan finds beyond them (containers in .ldata,
.cask_resource, .rodata or .data, found by their magic; a bare PTX file,
which cuobjdump does not read) is counted on the file's line, not failed.

--known-sections  our side is scan --known-sections --json (cuobjdump's own
                  work); the default scan is asked too, for what it adds,
                  and must list the same images in the known sections.
--variants        the arch compared with its a/f suffix (sm_90a). Without
                  it, base archs: cuobjdump 12.4 names a CUDA 13 sm_90a
                  cubin sm_90 (it reads the older e_flags layout).
--variants=a      the 'a' suffix only: cuobjdump 13.0 names CUDA 13's
                  sm_90a cubins sm_90a but its family cubins (nvcc
                  -arch=sm_100f, which scan lists as sm_100f) sm_100;
                  seen on the nvidia-* 13 wheels' libraries on an H200
                  machine (tests/gpu/on-lent-machine), 2026-12-04.

Prints one line per file, then "N files compared, N different"; exit 1
when a file differs.
"""
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

KNOWN = ('.nv_fatbin', '__nv_relfatbin', '[file]')

args = sys.argv[1:]
known_sections = '--known-sections' in args
variants = '--variants' in args or '--variants=a' in args
a_only = '--variants=a' in args
args = [a for a in args if a not in ('--known-sections', '--variants', '--variants=a')]
if len(args) < 2:
    sys.exit('usage: cuobjdump-compare.py [--known-sections] [--variants] CUOBJDUMP CUDATRACE FILE...')
cuobjdump, ct, files = args[0], args[1], args[2:]
line_re = re.compile(r'(ELF|PTX) file\s+(?:\d+: )?.*\.sm_(\d+)([af]?)\.(cubin|ptx)$')


def arch(sm, variant):
    if a_only and variant == 'f':
        variant = ''
    return '%d%s' % (sm, variant or '') if variants else '%d' % sm


def theirs(path, all_sections):
    argv = [cuobjdump] + (['-all'] if all_sections else []) + ['--list-elf', '--list-ptx', path]
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True).stdout
    return [(m.group(1), arch(int(m.group(2)), m.group(3)))
            for m in map(line_re.match, out.splitlines()) if m]


def scan(path, extra_args):
    out = subprocess.run([ct, 'scan', '--json'] + extra_args + [path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True).stdout
    return json.loads(out)['files'][0]


def seq(f, sections):
    return [('ELF' if i['kind'] == 'sass' else 'PTX', arch(i['sm'], i['variant']))
            for s in sections for i in f['images']
            if i['section'] == s and i['kind'] in ('sass', 'ptx')]


def compare(path):
    full = scan(path, [])
    f = scan(path, ['--known-sections']) if known_sections else full
    problems = []
    # A bare PTX file: cuobjdump says it holds no device code.
    bare_ptx = f.get('type') == 'ptx'
    known = () if bare_ptx else KNOWN
    ours_all = seq(f, known)
    # Without -all cuobjdump reads the executable fatbin, else the relocatable one.
    ours_default = seq(f, [s for s in ('.nv_fatbin', '[file]') if s in known]) or \
        seq(f, [s for s in ('__nv_relfatbin',) if s in known])
    extra = len([i for i in full['images'] if bare_ptx or i['section'] not in KNOWN])
    if known_sections and seq(full, known) != ours_all:
        problems.append('scan --known-sections lists %d images in the known sections, '
                        'the default scan %d' % (len(ours_all), len(seq(full, known))))
    for name, ours, t in (('-all', ours_all, theirs(path, True)),
                          ('default', ours_default, theirs(path, False))):
        if ours != t:
            k = next((k for k, (a, b) in enumerate(zip(ours, t)) if a != b), min(len(ours), len(t)))
            problems.append('%s: scan %d images, cuobjdump %d; first difference at %d: scan %s, cuobjdump %s' % (
                name, len(ours), len(t), k, ours[k] if k < len(ours) else 'nothing',
                t[k] if k < len(t) else 'nothing'))
    return path, len(ours_all), extra, bare_ptx, problems


bad = 0
with ThreadPoolExecutor(2) as pool:
    for path, n, extra, bare_ptx, problems in pool.map(compare, files):
        status = 'same' if not problems else 'DIFFERENT'
        note = ''
        if extra:
            note = ' (+%d %s)' % (extra, 'in a bare PTX file, which cuobjdump does not read' if bare_ptx
                                  else 'in sections cuobjdump does not read')
        print('%-9s %6d images%s  %s' % (status, n, note, path))
        for p in problems:
            print('          ' + p)
        bad += bool(problems)
print('%d files compared, %d different' % (len(files), bad))
sys.exit(1 if bad else 0)
