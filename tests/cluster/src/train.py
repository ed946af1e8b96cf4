"""The program of make check-cluster's jobs: one rank of a training job, as
far as loading goes, on a machine without a GPU.

It first checks that cuBLAS 12 loads, through ctypes and by name, as some
training scripts do before anything else (and says so, exit 1, when it
does not); then imports torch (libtorch_cuda needs cuBLAS, cuDNN, NCCL)
and asks torch.cuda.is_available() (the runtime looks for libcuda.so.1);
and, as the case asks:
  --profiler-rank R rank R is the job's profiler: it loads CUPTI 12 by
                    name (libcupti.so.12), as a profiler does
  --gloo            joins the job's gloo process group (its store at
                    MASTER_ADDR:MASTER_PORT, made without libuv) and sums
                    one tensor across the ranks
  --fail-once-rank R  rank R exits 1 on the elastic agent's first attempt
                    (TORCHELASTIC_RESTART_COUNT 0): torchrun restarts it
  --sleep S         sleeps S seconds at the end (a job to cancel)
  --touch DIR       writes DIR/ready-RANK when it is about to sleep
It prints one line: rank, host, what it found.
"""
import argparse
import ctypes
import os
import socket
import sys
import time


def rank():
    # The launcher of the ranks first: an mpirun in a batch script has the
    # batch step's SLURM_PROCID (0) in every rank.
    for v in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "RANK", "SLURM_PROCID"):
        if os.environ.get(v, "").isdigit():
            return int(os.environ[v])
    return 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--profiler-rank", type=int)
    p.add_argument("--gloo", action="store_true")
    p.add_argument("--fail-once-rank", type=int)
    p.add_argument("--sleep", type=float, default=0)
    p.add_argument("--touch")
    a = p.parse_args()
    r, host = rank(), socket.gethostname()
    if a.fail_once_rank == r and os.environ.get("TORCHELASTIC_RESTART_COUNT") == "0":
        print("rank %d on %s: failing its first attempt" % (r, host), flush=True)
        sys.exit(1)

    try:
        cublas = ctypes.CDLL("libcublas.so.12")
    except OSError as e:
        print("rank %d on %s: no cuBLAS 12: %s" % (r, host, e), flush=True)
        sys.exit(1)
    prop = ctypes.c_int()
    cublas.cublasGetProperty(0, ctypes.byref(prop))  # MAJOR_VERSION

    import torch

    said = ["cuBLAS %d" % prop.value, "torch %s" % torch.__version__,
            "cuda %s" % torch.cuda.is_available()]
    if a.profiler_rank == r:
        try:
            ctypes.CDLL("libcupti.so.12")
            said.append("CUPTI")
        except OSError as e:
            said.append("no CUPTI (%s)" % e)
    if a.gloo:
        import torch.distributed as dist

        # Debian's torch has no libuv, which TCPStore asks for by default
        # (and env:// in torch 2.6 ignores use_libuv=0): the store is made
        # here, as env:// would: a client of torchrun's agent's store, or
        # hosted by rank 0.
        world = int(os.environ["WORLD_SIZE"])
        agent = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
        store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world,
                              is_master=r == 0 and not agent, use_libuv=False)
        dist.init_process_group("gloo", store=store, rank=r, world_size=world)
        t = torch.ones(1)
        dist.all_reduce(t)
        said.append("gloo sum %d of %d" % (int(t.item()), dist.get_world_size()))
        dist.destroy_process_group()
    print("rank %d on %s: %s" % (r, host, ", ".join(said)), flush=True)
    if a.sleep:
        if a.touch:
            open(os.path.join(a.touch, "ready-%d" % r), "w").close()
        time.sleep(a.sleep)


main()
