"""check's verdicts on the wheels against a table made without cudatrace
(tests/pip/scan-wheels). Not a test itself.

python3 check_table.py LISTS CHECK_JSON CUDA... [--kernel-less MEMBER...]

LISTS is wheel_compare.py's --lists (what cuobjdump -all lists in each
member); CHECK_JSON is cudatrace check --json --arch sm_90,sm_100,sm_120
--driver 550 on the same wheels; each CUDA is "WHEEL-NAME-PREFIX=RELEASE",
the CUDA release the wheel was built with, from its name or its project's
notes (torch-=13.2, xformers-=12.4...), or its major alone when the minor
is not published (onnxruntime_gpu-=12): then a member with PTX but no
sm_90 SASS is not judged for sm_90. For every member cuobjdump lists
images in, the verdict the table expects, by the rules of
docs/scan-and-check.md, for the 550 driver (CUDA 12.4):

  sm_100, sm_120  no-gpu-support: R550 drives no Blackwell (R570 does);
  sm_90           driver-too-old for a build of CUDA 13 (it needs R580);
                  sass when cuobjdump lists an sm_90 ELF (sm_90a included:
                  cuobjdump 12.4 names it sm_90); else ptx-jit when it
                  lists PTX for 9.0 or lower and the release is 12.4 or
                  older (its PTX ISA a 12.4 driver compiles), ptx-too-new
                  when newer; else no-image.

--kernel-less MEMBER...: members whose fatbins define no kernel (CUDA 13's
wrapper containers, cuobjdump -sass lists no function): no-device-code, as
check leaves such fatbins out (docs/scan-and-check.md).

Prints each member's verdicts that differ, then "N members, N verdicts
compared, N different"; exit 1 when one differs.
"""
import json
import sys

args = sys.argv[3:]
kernel_less = []
if '--kernel-less' in args:
    kernel_less = args[args.index('--kernel-less') + 1:]
    args = args[:args.index('--kernel-less')]
lists = json.load(open(sys.argv[1]))
got = {f['path']: {r['target']: r['verdict'] for r in f.get('results') or []}
       for f in json.load(open(sys.argv[2]))['files']}
releases = [a.split('=') for a in args]


def release(path):
    name = path.split('!')[0].rsplit('/', 1)[-1]
    # bitsandbytes names each library's CUDA: libbitsandbytes_cuda124.so
    member = path.split('!')[1]
    if 'libbitsandbytes_cuda' in member:
        v = member.split('libbitsandbytes_cuda')[1].split('.')[0]
        return (int(v[:-1]), int(v[-1]))
    for prefix, r in releases:
        if name.startswith(prefix):
            return tuple(int(x) for x in r.split('.'))
    sys.exit('no CUDA release given for %s' % name)


def expected(path, images):
    if path.split('!')[1] in kernel_less:
        return {t: 'no-device-code' for t in ('sm_90', 'sm_100', 'sm_120')}
    rel = release(path)
    want = {'sm_100': 'no-gpu-support', 'sm_120': 'no-gpu-support'}
    elf = [a for k, a in images if k == 'ELF']
    ptx = [a for k, a in images if k == 'PTX']
    if rel[0] >= 13:
        want['sm_90'] = 'driver-too-old'
    elif 90 in elf:
        want['sm_90'] = 'sass'
    elif [a for a in ptx if a <= 90]:
        if len(rel) < 2:
            del want['sm_90']  # PTX's ISA depends on the minor release, not known
        else:
            want['sm_90'] = 'ptx-jit' if rel <= (12, 4) else 'ptx-too-new'
    else:
        want['sm_90'] = 'no-image'
    return want


n = bad = members = 0
for path, images in sorted(lists.items()):
    if not images:
        continue
    members += 1
    want = expected(path, images)
    diffs = ['%s: check %s, the table %s' % (t, got.get(path, {}).get(t, 'nothing'), v)
             for t, v in sorted(want.items()) if got.get(path, {}).get(t) != v]
    n += len(want)
    if diffs:
        bad += len(diffs)
        print('DIFFERENT %s\n          %s' % (path.rsplit('/', 1)[-1], '; '.join(diffs)))
print('%d members, %d verdicts compared, %d different' % (members, n, bad))
sys.exit(1 if bad else 0)
