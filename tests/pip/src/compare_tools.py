"""The tools users run today beside cudatrace, on the scenarios of
tests/pip (tests/pip/tools-comparison). Not a test itself.

python3 compare_tools.py --rows                  each row's id and machine
python3 compare_tools.py ROW VENVS CUDATRACE ENV_DOCTOR DRV550 SCRATCH
                                                 one row, run for real on the
                                                 machine it is started on: a
                                                 JSON line
python3 compare_tools.py --table FILE...         the Markdown table of rows

For a row: its program runs under cudatrace, and the first finding is what
cudatrace said first (or "no error or warning"). Then, in the same venv
and environment: python -m torch.utils.collect_env (its CUDA lines, or how
it failed), env-doctor check (its first line marked as a problem, or
none), and cuda.pathfinder's load_nvidia_dynamic_lib of the library the
row is about (what it loaded, or its error).

Each answer is judged by the row's patterns, written from what really
happened in the scenario (docs/real-world.md): "right" when it names the
cause (the row's `right`), "wrong" when it says something false or points
elsewhere (the row's `wrong`), else "silent": it did not say the cause.
For the rows where nothing is wrong, saying nothing is right.
"""
import json
import os
import re
import subprocess
import sys

ONNX = 'identity.onnx'
ROWS = [
    # id, machine, venv, extra environment, program, pathfinder's library,
    # the real cause, right, wrong
    dict(id='import', machine='bare', venv='torch', env={}, prog=['-c', 'import torch'], lib='cudart',
         cause='nothing is wrong: no driver, and nothing asked for one',
         right=r'^no error or warning|^info driver-missing|^\(none\)|^/.*libcudart\.so\.13 \(site-packages\)',
         wrong=r'^(error|warning) |NOT installed'),
    dict(id='is_available, no driver', machine='bare', venv='torch', env={},
         prog=['-c', 'import torch; print(torch.cuda.is_available())'], lib='cuda',
         cause='no NVIDIA driver', right=r'driver-missing|No NVIDIA Driver|NVIDIA driver library', wrong=r'NOT installed'),
    dict(id='driver 550', machine='bare', venv='torch', env={'LD_LIBRARY_PATH': '$DRV550'},
         prog=['-c', 'import torch; print(torch.cuda.is_available())'], lib='cudart',
         cause='the 550 driver (CUDA 12.4) is too old for torch\'s CUDA 13.2 (580 or newer)',
         right=r'driver-too-old|too old|insufficient', wrong=r'No NVIDIA Driver|NOT installed|driver-missing'),
    dict(id='cuDNN uninstalled', machine='bare', venv='torch-no-cudnn', env={}, prog=['-c', 'import torch'],
         lib='cudnn', cause='libcudnn.so.9 missing: pip install nvidia-cudnn-cu13==9.26.0.51',
         right=r'libcudnn\.so\.9|cudnn.*(not found|NotFound)', wrong=r'driver-missing|NOT installed|No NVIDIA Driver'),
    dict(id='toolkit first on LD_LIBRARY_PATH', machine='host', venv='torch',
         env={'LD_LIBRARY_PATH': '/usr/local/cuda/lib64'},
         prog=['-c', 'import torch; print(torch.backends.cudnn.version())'], lib='cublas',
         cause='nothing is taken from the toolkit (torch 2.15 preloads its wheels); no driver',
         right=r'^no error or warning|^info |^error driver-missing|^/.*site-packages/nvidia/cu13/lib/libcublas\.so\.13',
         wrong=r'^(error|warning) (lib-shadowed|lib-mixed)|^/usr/local/cuda'),
    dict(id='ONNX Runtime (CUDA 12) beside CUDA 13', machine='bare', venv='torch-ort', env={},
         prog=['$ORT'], lib='cublasLt',
         cause='its CUDA provider needs libcublasLt.so.12 and the other CUDA 12 libraries',
         right=r'libcublasLt\.so\.12|libcudart\.so\.12|CUDA 12', wrong=r'NOT installed'),
    dict(id='TensorFlow (CUDA 12) and torch (CUDA 13)', machine='bare', venv='torch-tf', env={},
         prog=['-c', 'import torch, tensorflow; print(torch.backends.cudnn.version())'], lib='cudnn',
         cause='torch loads cuDNN 9.28.0.42 built for CUDA 12 (nvidia-cudnn-cu12 overwrote torch\'s)',
         right=r'cudnn.*(cu12|CUDA 12|9\.28)|(cu12|CUDA 12|9\.28).*cudnn', wrong=r'NOT installed'),
    dict(id='xformers built for torch 2.6.0', machine='bare', venv='torch-ext', env={},
         prog=['-c', 'import torch, xformers, xformers._cpp_lib'], lib='cudart',
         cause='xformers 0.0.29.post3 is built for torch 2.6.0 (undefined symbol)',
         right=r'symbol-missing|undefined symbol|xformers', wrong=r'NOT installed'),
    dict(id='CuPy (CUDA 12), no driver', machine='bare', venv='torch-cupy', env={},
         prog=['-c', 'import cupy; print(cupy.zeros(1))'], lib='cuda', cause='no NVIDIA driver',
         right=r'driver-missing|No NVIDIA Driver|NVIDIA driver library', wrong=r'NOT installed'),
    dict(id='JAX (CUDA 13), no driver', machine='bare', venv='torch-jax', env={},
         prog=['-c', 'import jax; print(jax.devices())'], lib='cuda',
         cause='no NVIDIA driver (JAX dies with SIGSEGV)',
         right=r'driver-missing|No NVIDIA Driver|NVIDIA driver library', wrong=r'NOT installed'),
]


def run(argv, env, timeout=600):
    try:
        r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=timeout)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        return 124, (e.stdout or '') if isinstance(e.stdout, str) else ''


def first_line(pattern, text, default):
    for line in text.splitlines():
        if re.search(pattern, line):
            return line.strip()
    return default


def one_row(row, venvs, ct, env_doctor, drv550, scratch):
    py = os.path.join(venvs, row['venv'], 'bin', 'python')
    env = dict(os.environ)
    for k, v in row['env'].items():
        env[k] = v.replace('$DRV550', drv550)
    prog = [a.replace('$ORT', os.path.join(scratch, 'ort.py')) for a in row['prog']]
    out = {'id': row['id']}
    rc, text = run([ct, '-o', os.path.join(scratch, 'trace-' + re.sub(r'\W+', '-', row['id'])), '--', py] + prog, env)
    out['cudatrace'] = first_line(r'^(error|warning) [a-z-]+: ', text,
                                  first_line(r'^info [a-z-]+: ', text, 'no error or warning'))
    rc, text = run([py, '-m', 'torch.utils.collect_env'], env)
    if rc != 0:
        out['collect_env'] = 'fails: ' + (text.strip().splitlines() or ['?'])[-1]
    else:
        out['collect_env'] = '; '.join(first_line('^' + k, text, k + ' ?') for k in
                                       ('Is CUDA available', 'Nvidia driver version', 'cuDNN version'))
    e = dict(env, PYTHONPATH=env_doctor)
    rc, text = run([py, '-c', 'import sys; sys.argv = ["env-doctor", "check"]; '
                    'from env_doctor.cli import main; sys.exit(main())'], e)
    out['env_doctor'] = first_line('^(\u274c|\u26a0)', text, '(none)')
    rc, text = run([py, '-c', 'import sys\nfrom cuda.pathfinder import load_nvidia_dynamic_lib as l\n'
                    'try:\n    d = l(sys.argv[1]); print(d.abs_path, "(%s)" % d.found_via)\n'
                    'except Exception as e:\n    print(type(e).__name__ + ": " + str(e).splitlines()[0])',
                    row['lib']], env)
    out['pathfinder'] = text.strip().splitlines()[-1] if text.strip() else '?'
    return out


def judge(row, said):
    if re.search(row['wrong'], said, re.I):
        return 'wrong'
    if re.search(row['right'], said, re.I):
        return 'right'
    return 'silent'


def md(s, n=110):
    s = s.replace('|', '\\|')
    return s if len(s) <= n else s[:n - 3] + '...'


def table(files):
    results = {}
    for f in files:
        for line in open(f):
            if line.strip():
                r = json.loads(line)
                results[r['id']] = r
    tools = (('cudatrace', 'cudatrace (first finding)'), ('collect_env', 'torch collect_env'),
             ('env_doctor', 'env-doctor check (first problem)'),
             ('pathfinder', 'cuda.pathfinder (the library at issue)'))
    print('| scenario | the real cause | ' + ' | '.join(t[1] for t in tools) + ' |')
    print('|' + '---|' * (2 + len(tools)))
    score = {t[0]: 0 for t in tools}
    for row in ROWS:
        r = results.get(row['id'])
        if not r:
            continue
        cells = []
        for key, _ in tools:
            j = judge(row, r[key])
            score[key] += j == 'right'
            cells.append('**%s**: %s' % (j, md(r[key])))
        print('| %s | %s | %s |' % (row['id'], row['cause'], ' | '.join(cells)))
    print('| right, of %d | | %s |' % (len(results), ' | '.join(str(score[t[0]]) for t in tools)))


if sys.argv[1] == '--rows':
    for row in ROWS:
        print('%s\t%s' % (row['machine'], row['id']))
elif sys.argv[1] == '--table':
    table(sys.argv[2:])
else:
    row = next(r for r in ROWS if r['id'] == sys.argv[1])
    print(json.dumps(one_row(row, *sys.argv[2:7])))
