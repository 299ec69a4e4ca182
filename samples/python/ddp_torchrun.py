#!/usr/bin/env python3
"""DistributedDataParallel with one segfeed loader per process, under torchrun.

::

    torchrun --nproc_per_node=2 samples/python/ddp_torchrun.py --data DATA --size 512 --batch-size 16
    python -m torch.distributed.run --nproc_per_node=2 --redirects 1 --tee 1 \\
        samples/python/ddp_torchrun.py --size 64 --width 4         # a small demo, made by rank 0

(Debian's torch 1.13 ``torchrun`` under Python 3.11 crashes in its log
handling without ``--redirects 1 --tee 1``; and it runs /usr/bin/python3,
so call ``python -m torch.distributed.run`` with the Python that has segfeed.)

Each rank builds its loader with no coordination: ``segfeed.Loader`` reads
RANK and WORLD_SIZE from the environment torchrun sets, and streams its shard
with DistributedSampler semantics (one permutation per epoch from the seed,
padded to a multiple of the world size by repeating its start, rank r takes
every WORLD_SIZE-th sample from r), so every rank has the same number of
batches and DDP's all-reduces line up, the last short batch included. The
model trains with the gloo backend on the CPU (nccl with ``--device cuda``).
After each epoch rank 0 gathers every rank's sample ids and checks that
they were disjoint apart from that padding and covered the epoch, and that
DDP left the same parameters on every rank. Exit status 0 when all checks hold.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pathlib
import sys
import tempfile
import time
from typing import List, Optional

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

import segfeed
import segfeed.torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_unet import UNet, ensure_dataset  # noqa: E402  (the sample beside this one)


def check_shards(per_rank: List[List[int]], samples: int) -> str:
    """Checks that the ranks' ids of one epoch are the epoch's permutation of every
    sample, dealt round-robin and padded from its start; returns a summary, or raises."""
    world = len(per_rank)
    lengths = {len(ids) for ids in per_rank}
    if len(lengths) != 1:
        raise AssertionError(f"the ranks got different numbers of samples: {[len(ids) for ids in per_rank]}")
    per_rank_samples = lengths.pop()
    # Rank r's k-th sample is position k * world + r of the epoch's global order.
    order = [per_rank[rank][k] for k in range(per_rank_samples) for rank in range(world)]
    padding = len(order) - samples
    if not 0 <= padding < world:
        raise AssertionError(f"{len(order)} samples over {world} ranks for an epoch of {samples}")
    if sorted(order[:samples]) != list(range(samples)):
        raise AssertionError("the ranks' samples do not cover the epoch exactly once: missing "
                             f"{sorted(set(range(samples)) - set(order))}")
    if order[samples:] != order[:padding]:
        raise AssertionError(f"the padding {order[samples:]} is not the start of the epoch's order {order[:padding]}")
    return (f"{world} ranks x {per_rank_samples} samples cover all {samples} of the epoch, "
            + (f"disjoint but for {padding} padding sample(s) repeated from the start of the order "
               f"({order[samples:]})" if padding else "disjoint"))


def parameters_digest(model: nn.Module) -> str:
    """SHA-256 of the parameters, which DDP keeps equal on every rank (BatchNorm's
    running statistics are buffers, each rank's own since the last forward)."""
    digest = hashlib.sha256()
    for tensor in model.parameters():
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data", help="dataset root in Carvana's layout; a demo is made there by rank 0 when it has "
                                       "no train/ folder (default: in a temporary folder)")
    parser.add_argument("--demo-count", type=int, default=21, help="pairs in a generated demo (odd: padding shows)")
    parser.add_argument("--demo-size", default="480x320", help="WIDTHxHEIGHT of a generated demo's photos")
    parser.add_argument("--segfeed-cli", help="the segfeed command, to make a demo")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--batch-size", type=int, default=4, help="per rank")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--width", type=int, default=32, help="U-Net channels at the first level")
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--threads", type=int, default=0, help="segfeed decode threads per rank (0: one per core)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: one GPU per rank (LOCAL_RANK) and the nccl backend")
    return parser.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if "RANK" not in os.environ:
        sys.exit("run me under torchrun: python -m torch.distributed.run --nproc_per_node=2 --redirects 1 --tee 1 "
                 f"{sys.argv[0]} ...")
    if args.device == "cuda":
        device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)))
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")
    dist.init_process_group("nccl" if args.device == "cuda" else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    with tempfile.TemporaryDirectory(prefix="segfeed-demo-") as temporary:
        # Rank 0 makes a missing demo; the others wait for it, then find it there.
        folder = [temporary if args.data is None else None]
        dist.broadcast_object_list(folder, src=0)
        if rank == 0:
            data = ensure_dataset(args, folder[0] or temporary)
        dist.barrier()
        if rank != 0:
            data = pathlib.Path(args.data) if args.data else pathlib.Path(folder[0]) / "data"
        status = train(args, data, device, rank, world)
        dist.barrier()  # rank 0's temporary demo outlives every rank's loader
    dist.destroy_process_group()
    return status


def train(args: argparse.Namespace, data: pathlib.Path, device: torch.device, rank: int, world: int) -> int:
    # rank and world_size come from RANK and WORLD_SIZE, as torchrun sets them.
    loader = segfeed.Loader(data, batch_size=args.batch_size, size=args.size, layout="nchw", seed=args.seed,
                            threads=args.threads)
    assert (loader.rank, loader.world_size) == (rank, world)
    torch.manual_seed(args.seed)  # DDP broadcasts rank 0's weights anyway
    model = DistributedDataParallel(UNet(args.width, args.depth).to(device),
                                    device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.BCEWithLogitsLoss()
    if rank == 0:
        print(f"{world} ranks, each: {loader}", flush=True)
    status = 0
    for epoch in range(args.epochs):
        started = time.perf_counter()
        ids: List[int] = []
        sizes: List[int] = []
        loss_sum = 0.0
        for images, masks, info in segfeed.torch.batches(loader, epoch, info=True):
            images, masks = segfeed.torch.to_device(images, masks, device)
            ids.extend(info["sample_ids"])
            sizes.append(len(info["sample_ids"]))
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(images), masks)
            loss.backward()  # all-reduces the gradients across the ranks
            optimizer.step()
            loss_sum += loss.item()
        segfeed.torch.synchronize()
        gathered: List[Optional[dict]] = [None] * world
        dist.all_gather_object(gathered, {"ids": ids, "sizes": sizes, "loss": loss_sum / max(len(sizes), 1),
                                          "parameters": parameters_digest(model.module)})
        if rank == 0:
            try:
                summary = check_shards([g["ids"] for g in gathered], len(loader.pairs()))
                digests = {g["parameters"] for g in gathered}
                if len(digests) != 1:
                    raise AssertionError(f"the ranks' parameters differ after the epoch: {sorted(digests)}")
                summary += "; DDP: the same parameters on every rank"
            except AssertionError as error:
                summary, status = f"FAILED: {error}", 1
            losses = ", ".join(f"{g['loss']:.4f}" for g in gathered)
            print(f"epoch {epoch + 1}/{args.epochs}: {len(sizes)} DDP steps per rank (batch sizes "
                  f"{gathered[0]['sizes']}), loss per rank {losses}, {time.perf_counter() - started:.1f} s; "
                  f"shards: {summary}", flush=True)
    loader.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
