"""torchrun, with its stores made without libuv.

Debian's torch is built without libuv, and torch 2.6's TCPStore asks for
it by default: torchrun's c10d rendezvous fails ("use_libuv was requested
but PyTorch was build without libuv support") and no option of torchrun
changes that. This runs torchrun's own main() with the stores made with
use_libuv=False: the elastic agent's c10d rendezvous store and the store
it shares with the workers (TORCHELASTIC_USE_AGENT_STORE). A worker's own
store is its business (train.py: env://?use_libuv=0). Arguments as
torchrun's.
"""
import sys

import torch.distributed as dist
from torch.distributed.elastic.rendezvous import c10d_rendezvous_backend, dynamic_rendezvous


class Store(dist.TCPStore):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("use_libuv", False)
        super().__init__(*args, **kwargs)


c10d_rendezvous_backend.TCPStore = Store
dist.TCPStore = Store
dynamic_rendezvous.dist.TCPStore = Store

from torch.distributed.run import main  # noqa: E402

sys.argv[0] = "torchrun"
sys.exit(main())
