"""cudatrace ldd --json against glibc's own loader, for real files, inside
the trixie root (tests/real/real-builds-ldd): not a test itself.

python3 loader-compare.py [--device-code] CUDATRACE LD_LIBRARY_PATH FILE...

For each FILE, what the loader of the root maps when asked as ldd asks it
(LD_TRACE_LOADED_OBJECTS=1 /lib64/ld-linux-x86-64.so.2 FILE, with that
LD_LIBRARY_PATH; it maps and lists, never runs), against cudatrace ldd
--json --library-path LD_LIBRARY_PATH FILE (the comparison of
tests/e2e/ldd-oracle, on real builds):
  - the objects mapped, in order, each with its name and path (the loader
    itself and linux-vdso aside), and the libraries not found;
  - the loader's fatal error, if any;
  - the loader's "version `V' not found (required by X)" lines against
    ldd's symbol_versions entries (library, version, requester);
  - with --device-code, each mapped library's device code in ldd (sass,
    ptx) against cudatrace scan --json of the same file.
The ldd documents are written to DIR/ldd-N.json for the schema check when
LOADER_COMPARE_KEEP=DIR is set.
Prints one line per file, then "N files compared, N different"; exit 1
when a file differs.
"""
import json
import os
import re
import subprocess
import sys

RTLD = '/lib64/ld-linux-x86-64.so.2'
args = sys.argv[1:]
device_code = args[:1] == ['--device-code']
if device_code:
    args = args[1:]
ct, llp, files = args[0], args[1], args[2:]
keep = os.environ.get('LOADER_COMPARE_KEEP')
version_re = re.compile(r"^(?:.*?): (\S+): version `([^']+)' not found \(required by (\S+)\)$")


def run(argv, env=None):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, env=env)


def loader(path):
    env = {'PATH': '/usr/bin:/bin', 'LD_TRACE_LOADED_OBJECTS': '1'}
    if llp:
        env['LD_LIBRARY_PATH'] = llp
    r = run([RTLD, path], env=env)
    mapped = []
    for line in r.stdout.splitlines():
        line = line.strip()
        if not line or line.startswith('linux-vdso'):
            continue
        if '=>' in line:
            name, rest = [x.strip() for x in line.split('=>', 1)]
            mapped.append((name, None if rest.startswith('not found') else rest.rsplit(' (', 1)[0]))
        elif ' (0x' in line:
            name = line.rsplit(' (', 1)[0]
            if name != RTLD:
                mapped.append((name, name))
    # The loader's own line names it by path, ldd's by DT_NEEDED name.
    mapped = [m for m in mapped if m[1] != RTLD]
    versions = set()
    for line in r.stderr.splitlines():
        m = version_re.match(line.strip())
        if m:
            versions.add((os.path.basename(m.group(1)), m.group(2), m.group(3)))
    fatal = None
    if r.returncode != 0:
        marker = 'error while loading shared libraries: '
        err = r.stderr.strip()
        fatal = err.split(marker, 1)[1] if marker in err else err
    return mapped, versions, fatal


def scan_summary(path):
    d = json.loads(run([ct, 'scan', '--json', path]).stdout)['files'][0]
    return (sorted({i['arch'] for i in d['images'] if i['kind'] == 'sass'}),
            sorted({i['arch'] for i in d['images'] if i['kind'] == 'ptx'}))


def ours(path, n):
    r = run([ct, 'ldd', '--json', '--library-path', llp, path])
    doc = json.loads(r.stdout)
    if keep:
        with open(os.path.join(keep, 'ldd-%d.json' % n), 'w') as f:
            f.write(r.stdout)
    mapped = [(lib.get('expanded', lib['name']), lib['path']) for lib in doc['libraries']
              if lib['found_via'] != 'already-loaded' and lib['path'] != RTLD]
    versions = {(lib['library'], lib['version'], lib['requested_by'])
                for lib in doc.get('symbol_versions') or []
                if lib['code'] == 'symbol-version-missing' and not lib['symbol_missing']}
    code = [(lib['path'], lib['cuda']) for lib in doc['libraries']
            if lib.get('cuda') and lib['found_via'] != 'already-loaded']
    if doc.get('cuda'):
        code.append((path, doc['cuda']))
    return mapped, versions, doc.get('loader_error'), code


bad = 0
for n, path in enumerate(files):
    want, want_v, want_fatal = loader(path)
    got, got_v, got_fatal, code = ours(path, n)
    problems = []
    if want != got:
        problems.append('mapped: loader %s' % want)
        problems.append('        cudatrace %s' % got)
    if want_v != got_v:
        problems.append('versions not found: loader %s, cudatrace %s' % (sorted(want_v), sorted(got_v)))
    if (want_fatal or None) != (got_fatal or None):
        problems.append('loader error: loader %s, cudatrace %s' % (want_fatal, got_fatal))
    for lib, cuda in (code if device_code else []):
        sass, ptx = scan_summary(lib)
        if (sorted(cuda['sass']), sorted(cuda['ptx'])) != (sass, ptx):
            problems.append('device code of %s: ldd sass %s ptx %s, scan sass %s ptx %s' % (
                lib, cuda['sass'], cuda['ptx'], sass, ptx))
    print('%-9s %3d mapped, %d not found, %d versions not found  %s' % (
        'same' if not problems else 'DIFFERENT', len(want), len([m for m in want if m[1] is None]),
        len(want_v), path))
    for p in problems:
        print('          ' + p)
    bad += bool(problems)
print('%d files compared, %d different' % (len(files), bad))
sys.exit(1 if bad else 0)
