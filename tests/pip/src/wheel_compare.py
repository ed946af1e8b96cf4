"""scan of a wheel, read straight from the .whl, against cuobjdump on each
member (tests/pip/scan-wheels). Not a test itself.

python3 wheel_compare.py [--lists FILE] CUOBJDUMP CUDATRACE SCRATCH SITE... -- WHEEL...

For every wheel, cudatrace scan --json and scan --known-sections --json
read the .whl itself (members named WHEEL!MEMBER). cuobjdump cannot read a
wheel: it is run, with and without -all, on the member's bytes: the copy
pip installed in one of the SITE folders (the venvs were installed from
these very wheels, their hashes checked) when one of the member's size is
there, else the member extracted into SCRATCH. Every ELF member is
compared: the images cuobjdump --list-elf --list-ptx prints (ELF or PTX
and the base arch, in order) must be those scan --known-sections lists in
.nv_fatbin and __nv_relfatbin (-all), and the default scan must list the
same there; what the default scan finds beyond (containers outside those
sections) is counted, not failed.

Prints a line per member with device code, a line per wheel, then "N
members compared, N different"; exit 1 when one differs. --lists FILE
keeps what cuobjdump -all listed, as JSON {"WHEEL!MEMBER": [["ELF", 90],
...]}, for check_table.py.
"""
import json
import os
import re
import subprocess
import sys
import zipfile
from concurrent.futures import ThreadPoolExecutor

args = sys.argv[1:]
lists_file = None
if args[0] == '--lists':
    lists_file, args = args[1], args[2:]
sep = args.index('--')
cuobjdump, ct, scratch = args[0:3]
sites, wheels = args[3:sep], args[sep + 1:]
lists = {}
KNOWN = ('.nv_fatbin', '__nv_relfatbin')
line_re = re.compile(r'(ELF|PTX) file\s+(?:\d+: )?.*\.sm_(\d+)[af]?\.(cubin|ptx)$')


def theirs(path, all_sections):
    argv = [cuobjdump] + (['-all'] if all_sections else []) + ['--list-elf', '--list-ptx', path]
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True).stdout
    return [(m.group(1), int(m.group(2))) for m in map(line_re.match, out.splitlines()) if m]


def scan(whl, extra):
    out = subprocess.run([ct, 'scan', '--json'] + extra + [whl], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True).stdout
    return {f['path'].split('!', 1)[1]: f for f in json.loads(out)['files'] if '!' in f['path']}


def seq(f, sections):
    return [('ELF' if i['kind'] == 'sass' else 'PTX', i['sm'])
            for s in sections for i in (f or {}).get('images') or []
            if i['section'] == s and i['kind'] in ('sass', 'ptx')]


def local_copy(z, info):
    for s in sites:
        p = os.path.join(s, info.filename)
        if os.path.isfile(p) and os.path.getsize(p) == info.file_size:
            return p, False
    p = os.path.join(scratch, os.path.basename(info.filename))
    with z.open(info) as src, open(p, 'wb') as dst:
        while True:
            b = src.read(1 << 20)
            if not b:
                break
            dst.write(b)
    return p, True


def compare_member(whl, z, info, full, known):
    path, temp = local_copy(z, info)
    try:
        ours_all = seq(known, KNOWN)
        ours_default = seq(known, ('.nv_fatbin',)) or seq(known, ('__nv_relfatbin',))
        problems = []
        if seq(full, KNOWN) != ours_all:
            problems.append('scan --known-sections lists %d images, the default scan %d'
                            % (len(ours_all), len(seq(full, KNOWN))))
        t_all = theirs(path, True)
        lists['%s!%s' % (whl, info.filename)] = t_all
        for name, ours, t in (('-all', ours_all, t_all),
                              ('default', ours_default, theirs(path, False))):
            if ours != t:
                k = next((k for k, (a, b) in enumerate(zip(ours, t)) if a != b), min(len(ours), len(t)))
                problems.append('%s: scan %d images, cuobjdump %d; first difference at %d: scan %s, cuobjdump %s'
                                % (name, len(ours), len(t), k, ours[k] if k < len(ours) else 'nothing',
                                   t[k] if k < len(t) else 'nothing'))
        extra = len([i for i in (full or {}).get('images') or [] if i['section'] not in KNOWN])
        return info.filename, len(ours_all), extra, problems
    finally:
        if temp:
            os.unlink(path)


members = bad = 0
for whl in wheels:
    full, known = scan(whl, []), scan(whl, ['--known-sections'])
    with zipfile.ZipFile(whl) as z:
        elf = []
        for info in z.infolist():
            if info.is_dir() or info.file_size < 64:
                continue
            with z.open(info) as f:
                if f.read(4) == b'\x7fELF':
                    elf.append(info)
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda i: compare_member(whl, z, i, full.get(i.filename),
                                                             known.get(i.filename)), elf))
    n_img = n_bad = 0
    for name, n, extra, problems in results:
        members += 1
        n_img += n
        if n or extra or problems:
            print('%-9s %6d images%s  %s!%s' % ('same' if not problems else 'DIFFERENT', n,
                                                ' (+%d in sections cuobjdump does not read)' % extra
                                                if extra else '', os.path.basename(whl), name))
        for p in problems:
            print('          ' + p)
        n_bad += bool(problems)
    bad += n_bad
    print('wheel %s: %d ELF members, %d images, %d different' % (os.path.basename(whl), len(results),
                                                                n_img, n_bad))
print('%d members compared, %d different' % (members, bad))
if lists_file:
    with open(lists_file, 'w') as f:
        json.dump(lists, f)
sys.exit(1 if bad else 0)
