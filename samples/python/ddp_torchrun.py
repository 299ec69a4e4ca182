#!/usr/bin/env python3
"""DistributedDataParallel with one segfeed loader per process, under torchrun.

::

    torchrun --nproc_per_node=2 samples/python/ddp_torchrun.py --data DATA --size 512 --batch-size 16
    python -m torch.distributed.run --nproc_per_node=2 --redirects 1 --tee 1 \\
        samples/python/ddp_torchrun.py --size 64 --width 4         # a small demo, made by rank 0

    # two nodes (run on each; here both on one machine, 127.0.0.1)
    python -m torch.distributed.run --nnodes 2 --nproc_per_node 1 --rdzv_backend c10d \\
        --rdzv_endpoint HOST:29400 --rdzv_id job1 --redirects 1 --tee 1 \\
        samples/python/ddp_torchrun.py --data DATA --checkpoint ckpt.pt --checkpoint-step 2

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

``--checkpoint FILE`` makes rank 0 save the model, the optimizer and its
``loader.state_dict()`` after step ``--checkpoint-step`` of every epoch, all
ranks at that step (``--stop-at-checkpoint`` exits there). ``--resume FILE``
makes every rank load it and continue that epoch (``batches(loader, None)``), at
this world size or another. ``--ids-out`` records the sample ids each rank
trained on. A rank that loses a peer (a node died, or hangs past
``--timeout``) names it and exits with status 1; torchrun's agent on that
node then waits for the lost one in its exit barrier (300 s in torch 1.13)
unless it may restart (``--max_restarts 1``): then it exits when its new
rendezvous times out (``--rdzv_conf join_timeout=SECONDS``).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import pathlib
import re
import socket
import sys
import tempfile
import time
from datetime import timedelta
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel

import segfeed
import segfeed.torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_unet import UNet, ensure_dataset  # noqa: E402  (the sample beside this one)


def dealt_order(per_rank: List[List[int]], expected: List[int], what: str) -> Tuple[List[int], int]:
    """The global order of ids dealt round-robin to the ranks (rank r's k-th is position
    k * world + r), checked to be a permutation of ``expected`` padded from its start;
    returns it and the padding, or raises."""
    world = len(per_rank)
    lengths = {len(ids) for ids in per_rank}
    if len(lengths) != 1:
        raise AssertionError(f"the ranks got different numbers of samples: {[len(ids) for ids in per_rank]}")
    per_rank_samples = lengths.pop()
    order = [per_rank[rank][k] for k in range(per_rank_samples) for rank in range(world)]
    samples = len(expected)
    padding = len(order) - samples
    if not 0 <= padding < world:
        raise AssertionError(f"{len(order)} samples over {world} ranks for {what} of {samples}")
    if sorted(order[:samples]) != sorted(expected):
        raise AssertionError(f"the ranks' samples do not cover {what} exactly once: missing "
                             f"{sorted(set(expected) - set(order))}")
    if order[samples:] != order[:padding]:
        raise AssertionError(f"the padding {order[samples:]} is not the start of the order {order[:padding]}")
    return order, padding


def check_shards(per_rank: List[List[int]], samples: int) -> str:
    """Checks that the ranks' ids of one epoch are the epoch's permutation of every
    sample, dealt round-robin and padded from its start; returns a summary, or raises."""
    order, padding = dealt_order(per_rank, list(range(samples)), "the epoch")
    return (f"{len(per_rank)} ranks x {len(per_rank[0])} samples cover all {samples} of the epoch, "
            + (f"disjoint but for {padding} padding sample(s) repeated from the start of the order "
               f"({order[samples:]})" if padding else "disjoint"))


Segments = List[List[List[int]]]  # an epoch's ids per run that trained on it, per rank of that run


def merge_segments(segments: Segments, per_rank: List[List[int]]) -> Segments:
    """An epoch's segments with a run's ids added: a run resumed at the world size of the
    last segment continues its shards (any rank's state, byte for byte), a run of
    another world size re-shards the rest, a segment of its own."""
    if segments and len(segments[-1]) == len(per_rank):
        return segments[:-1] + [[before + after for before, after in zip(segments[-1], per_rank)]]
    return segments + [per_rank]


def check_resumed_shards(segments: Segments, per_rank: List[List[int]], samples: int) -> str:
    """Checks an epoch resumed from a checkpoint, whose runs had trained on ``segments``:
    the last run's ranks (a resumed run at the same world size continues them) dealt
    round-robin the samples the earlier ones had not trained on, padded from the start
    of that rest; with one run, that is the uninterrupted epoch. Returns a summary, or raises."""
    *earlier, last = merge_segments(segments, per_rank)
    if not earlier:
        return "resumed at the same world size; with the checkpoint's samples, " + check_shards(last, samples)
    before = [i for segment in earlier for ids in segment for i in ids]
    if len(set(before)) != len(before):
        raise AssertionError("the runs before the checkpoint had trained on a sample twice")
    rest = sorted(set(range(samples)) - set(before))
    order, padding = dealt_order(last, rest, "the rest of the epoch")
    return (f"resumed from {len(earlier[-1])} ranks: {len(last)} ranks x {len(last[0])} samples and the "
            f"{len(before)} trained on before the checkpoint cover all {samples} of the epoch exactly once"
            + (f", but for {padding} padding sample(s) repeated from the start of the rest ({order[len(rest):]})"
               if padding else ""))


def parameters_digest(model: nn.Module) -> str:
    """SHA-256 of the parameters, which DDP keeps equal on every rank (BatchNorm's
    running statistics are buffers, each rank's own since the last forward)."""
    digest = hashlib.sha256()
    for tensor in model.parameters():
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


# -- a lost peer --------------------------------------------------------------------


class PeerLost(Exception):
    """A collective failed: a peer died (its connections closed) or hung past --timeout."""


def this_rank() -> Dict[str, Any]:
    """Where this rank runs, for naming it to the others when it is lost."""
    host = socket.gethostname()
    try:
        addresses = sorted({info[4][0] for info in socket.getaddrinfo(host, None)})
    except OSError:
        addresses = []
    return {"rank": dist.get_rank(), "host": host, "addresses": addresses, "pid": os.getpid(),
            "node": os.environ.get("GROUP_RANK", "?"), "local_rank": os.environ.get("LOCAL_RANK", "?")}


def lost_peer(error: BaseException, peers: List[Dict[str, Any]], rank: int) -> str:
    """The peer(s) that a failed collective's error points at, in words: the ranks at
    the address gloo names (``Connection closed by peer [ADDRESS]:PORT``), else every
    other rank (a timeout names nobody; with two ranks it is the other one anyway)."""
    others = [p for p in peers if p["rank"] != rank]
    named = re.search(r"peer \[([^\]]+)\]", str(error))
    suspects = [p for p in others if named and named[1] in p["addresses"]] or others
    described = ", ".join(f"rank {p['rank']} (node {p['node']}, host {p['host']}, pid {p['pid']})" for p in suspects)
    return f"lost peer {described}" if len(suspects) == 1 else f"lost one of the peers {described}"


@contextlib.contextmanager
def peer_guard(peers: List[Dict[str, Any]], rank: int, where: List[str]) -> Iterator[None]:
    """Turns a failed collective (a RuntimeError from gloo or nccl) into PeerLost, naming
    the peer and ``where[0]``, the step the rank was at. segfeed's own errors pass."""
    try:
        yield
    except segfeed.Error:
        raise
    except RuntimeError as error:
        raise PeerLost(f"rank {rank}: {lost_peer(error, peers, rank)} at {where[0]}: {error}") from error


# -- checkpoints and ids --------------------------------------------------------------


def save_checkpoint(path: str, checkpoint: Dict[str, Any]) -> None:
    """Written beside `path` and renamed over it when complete, so that a crash while
    saving leaves the previous checkpoint whole."""
    partial = f"{path}.partial"
    torch.save(checkpoint, partial)
    os.replace(partial, path)


def write_ids(folder: Optional[str], record: Dict[str, Any]) -> None:
    """The ids this rank trained on, per epoch, to FOLDER/ids-rank{R}-{pid}.json (whole or
    not at all: a rank killed while writing leaves the previous version)."""
    if not folder:
        return
    path = pathlib.Path(folder) / f"ids-rank{record['rank']}-{record['pid']}.json"
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(record))
    os.replace(partial, path)


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data", help="dataset root in Carvana's layout; a demo is made there by rank 0 when it has "
                                       "no train/ folder (default: in a temporary folder); or shards: a folder "
                                       "with index.sfidx, s3://bucket/prefix/, https://host/path/")
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
    parser.add_argument("--timeout", type=float, default=300, metavar="SECONDS",
                        help="seconds a collective waits for a peer (init_process_group's timeout; torch's default is "
                             "30 minutes) before this rank gives up with status 1 naming the peer; a peer that died "
                             "is noticed at once, this bounds one that hangs (with nccl it needs "
                             "NCCL_ASYNC_ERROR_HANDLING=1)")
    parser.add_argument("--checkpoint", metavar="FILE",
                        help="rank 0 saves model, optimizer and loader state here after step --checkpoint-step of "
                             "every epoch (FILE.partial, then renamed)")
    parser.add_argument("--checkpoint-step", type=int, metavar="K",
                        help="the step of the epoch (every rank's, counted from 1) after which to save; none "
                             "given: the middle of the epoch")
    parser.add_argument("--stop-at-checkpoint", action="store_true",
                        help="exit with status 0 right after saving the first checkpoint (an interrupted run)")
    parser.add_argument("--resume", metavar="FILE",
                        help="every rank loads this checkpoint and continues its epoch from there, at this world "
                             "size or another")
    parser.add_argument("--ids-out", metavar="FOLDER",
                        help="each rank writes the sample ids it trained on, per epoch, to "
                             "FOLDER/ids-rank{R}-{pid}.json")
    parser.add_argument("--log-steps", action="store_true", help="print a line per rank after each step")
    parser.add_argument("--step-delay", type=float, default=0.0, metavar="SECONDS",
                        help="sleep this many seconds after each step (a slow step, so that a test can stop a node "
                             "mid-epoch)")
    args = parser.parse_args(argv)
    if args.stop_at_checkpoint and not args.checkpoint:
        parser.error("--stop-at-checkpoint needs --checkpoint")
    if args.checkpoint_step is not None and args.checkpoint_step < 1:
        parser.error(f"--checkpoint-step counts from 1 (got {args.checkpoint_step})")
    if args.timeout <= 0:
        parser.error(f"--timeout must be positive (got {args.timeout})")
    return args


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
    dist.init_process_group("nccl" if args.device == "cuda" else "gloo", timeout=timedelta(seconds=args.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    me = this_rank()
    print(f"rank {rank}/{world}: node {me['node']}, local rank {me['local_rank']}, host {me['host']}, pid {me['pid']}",
          flush=True)
    peers: List[Optional[Dict[str, Any]]] = [None] * world
    dist.all_gather_object(peers, me)
    where = ["start-up"]
    try:
        with peer_guard(peers, rank, where), tempfile.TemporaryDirectory(prefix="segfeed-demo-") as temporary:
            # Rank 0 makes a missing demo; the others wait for it, then find it there.
            folder = [temporary if args.data is None else None]
            dist.broadcast_object_list(folder, src=0)
            if rank == 0:
                data = dataset_of(args, folder[0] or temporary)
            dist.barrier()
            if rank != 0:
                data = args.data if args.data else pathlib.Path(folder[0]) / "data"
            status = train(args, data, device, rank, world, where)
            where[0] = "the end"
            dist.barrier()  # rank 0's temporary demo outlives every rank's loader
    except PeerLost as error:
        # No collective can complete without the peer: give up rather than wait (no
        # destroy_process_group, which would talk to it), and let torchrun see status 1.
        print(f"FAILED: {error}", file=sys.stderr, flush=True)
        return 1
    dist.destroy_process_group()
    return status


def dataset_of(args: argparse.Namespace, temporary: str) -> Union[str, pathlib.Path]:
    """--data as given when it names shards (a folder with index.sfidx, or in object storage:
    s3://bucket/prefix/, https://host/path/), else the Carvana root, a demo made when missing."""
    if args.data and ("://" in args.data or pathlib.Path(args.data, "index.sfidx").is_file()):
        return args.data
    return ensure_dataset(args, temporary)


def train(args: argparse.Namespace, data: Union[str, pathlib.Path], device: torch.device, rank: int, world: int,
          where: List[str]) -> int:
    # rank and world_size come from RANK and WORLD_SIZE, as torchrun sets them.
    loader = segfeed.Loader(data, batch_size=args.batch_size, size=args.size, layout="nchw", seed=args.seed,
                            threads=args.threads)
    try:
        return train_with(args, loader, device, rank, world, where)
    finally:
        loader.close()  # also when a peer was lost: the loader's threads end before the process does


def train_with(args: argparse.Namespace, loader: segfeed.Loader, device: torch.device, rank: int, world: int,
               where: List[str]) -> int:
    assert (loader.rank, loader.world_size) == (rank, world)
    torch.manual_seed(args.seed)  # DDP broadcasts rank 0's weights anyway
    module = UNet(args.width, args.depth).to(device)
    resumed: Optional[Dict[str, Any]] = None
    if args.resume:
        # Every rank loads rank 0's checkpoint: the parameters and Adam's moments are the
        # same on every rank, and any rank's loader state continues the epoch (re-sharding its
        # rest when the checkpoint's world size was another).
        resumed = torch.load(args.resume, map_location="cpu")
        module.load_state_dict(resumed["model"])
        torch.set_rng_state(resumed["torch_rng"])
        loader.load_state_dict(resumed["loader"])
    model = DistributedDataParallel(module, device_ids=[device.index] if device.type == "cuda" else None)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    if resumed:
        optimizer.load_state_dict(resumed["optimizer"])
    criterion = nn.BCEWithLogitsLoss()
    samples = len(loader.pairs())
    if rank == 0:
        print(f"{world} ranks, each: {loader}", flush=True)
        if resumed:
            here = loader.state_dict()  # where iter(loader) goes now
            resharded = (f" of the rest after the {here['shard_start']} samples they trained on, re-sharded"
                         if here["shard_start"] else "")
            print(f"resumed from {args.resume}: epoch {resumed['epoch'] + 1} after step {resumed['step']} of "
                  f"{resumed['world_size']} rank(s), now {world}, at batch {here['next_batch']}{resharded}",
                  flush=True)
    record: Dict[str, Any] = {"rank": rank, "world_size": world, "pid": os.getpid(), "resumed_from": args.resume,
                              "epochs": {}}
    status = 0
    start_epoch = resumed["epoch"] if resumed else 0
    for epoch in range(start_epoch, args.epochs):
        started = time.perf_counter()
        if resumed and epoch == start_epoch:
            # Where load_state_dict() put the loader: the rest of the epoch, re-sharded
            # when the checkpoint's world size was another.
            pairs = segfeed.torch.batches(loader, None, info=True)
            assert pairs.epoch == epoch, (pairs.epoch, epoch)
        else:
            pairs = segfeed.torch.batches(loader, epoch, info=True)
        # Steps count the epoch's batches from 1 (those before a checkpoint included); an
        # epoch re-sharded for another world size has its own, fewer.
        steps = pairs.first_batch + len(pairs)
        ids: List[int] = record["epochs"].setdefault(str(epoch), [])
        sizes: List[int] = []
        loss_sum = 0.0
        images = masks = None
        # The ids earlier runs trained on in this epoch, for the checks (a resumed epoch).
        segments: Segments = resumed["delivered"] if resumed and epoch == start_epoch else []
        checkpoint_step = args.checkpoint_step or max(1, loader.batches_per_epoch // 2)
        for images, masks, info in pairs:
            step = info["index"] + 1
            where[0] = f"epoch {epoch + 1}, step {step}/{steps}"
            images, masks = segfeed.torch.to_device(images, masks, device)
            ids.extend(info["sample_ids"])
            sizes.append(len(info["sample_ids"]))
            optimizer.zero_grad(set_to_none=True)
            loss = criterion(model(images), masks)
            loss.backward()  # all-reduces the gradients across the ranks
            optimizer.step()
            loss_sum += loss.item()
            if args.log_steps:
                print(f"rank {rank}: epoch {epoch + 1} step {step}/{steps}", flush=True)
            if args.step_delay:
                time.sleep(args.step_delay)
            if args.checkpoint and step == checkpoint_step:
                checkpoint(args, loader, model, optimizer, epoch, step, segments, ids, rank, world)
                if args.stop_at_checkpoint:
                    write_ids(args.ids_out, record)
                    return 0
        del images, masks
        segfeed.torch.synchronize()
        where[0] = f"the end of epoch {epoch + 1}"
        write_ids(args.ids_out, record)
        gathered: List[Optional[dict]] = [None] * world
        dist.all_gather_object(gathered, {"ids": ids, "sizes": sizes, "loss": loss_sum / max(len(sizes), 1),
                                          "parameters": parameters_digest(model.module)})
        if rank == 0:
            resumed_epoch = resumed is not None and epoch == start_epoch
            try:
                per_rank = [g["ids"] for g in gathered]
                summary = (check_resumed_shards(segments, per_rank, samples) if resumed_epoch
                           else check_shards(per_rank, samples))
                digests = {g["parameters"] for g in gathered}
                if len(digests) != 1:
                    raise AssertionError(f"the ranks' parameters differ after the epoch: {sorted(digests)}")
                summary += "; DDP: the same parameters on every rank"
            except AssertionError as error:
                summary, status = f"FAILED: {error}", 1
            losses = ", ".join(f"{g['loss']:.4f}" for g in gathered)
            print(f"epoch {epoch + 1}/{args.epochs}{' (resumed)' if resumed_epoch else ''}: {len(sizes)} DDP steps "
                  f"per rank (batch sizes {gathered[0]['sizes']}), loss per rank {losses}, "
                  f"{time.perf_counter() - started:.1f} s; shards: {summary}", flush=True)
    return status


def checkpoint(args: argparse.Namespace, loader: segfeed.Loader, model: DistributedDataParallel,
               optimizer: torch.optim.Optimizer, epoch: int, step: int, segments: Segments, ids: List[int],
               rank: int, world: int) -> None:
    """Rank 0 saves where the run is, every rank at the same step: gathering the ids trained
    on so far is the barrier before, and a barrier after keeps every rank from going on
    (or, with --stop-at-checkpoint, exiting) before the file is complete."""
    gathered: List[Optional[List[int]]] = [None] * world
    dist.all_gather_object(gathered, ids)
    if rank == 0:
        delivered = merge_segments(segments, gathered)
        save_checkpoint(args.checkpoint, {
            "model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
            "loader": loader.state_dict(), "epoch": epoch, "step": step, "world_size": world,
            "delivered": delivered,  # the epoch's ids so far, per run and rank: a resumed run checks its rest
            "torch_rng": torch.get_rng_state()})
        print(f"checkpoint: {args.checkpoint} (epoch {epoch + 1}, after step {step}, {world} ranks, "
              f"{sum(len(ids) for segment in delivered for ids in segment)} samples of the epoch trained on)",
              flush=True)
    dist.barrier()


if __name__ == "__main__":
    sys.exit(main())
