#!/usr/bin/env python3
"""A small U-Net trained on segfeed batches with a plain PyTorch loop.

The scenario segfeed was made for: Carvana-style photos with GIF masks,
resized to 512 x 512, a ~8M-parameter U-Net (``--width 32``), a training
subset with augmentation and a validation subset without it, both from one
seed. Each epoch prints the training and validation loss, how long the loop
waited for input, and the input stage's memory (``Loader.plan()`` next to
the process's measured RSS). ``--checkpoint FILE`` saves the model, the
optimizer and ``loader.state_dict()`` in the middle of every epoch;
``--resume FILE`` continues from such a checkpoint with the batches the
uninterrupted run would have had, byte for byte. ``--resume-check`` proves
it: it trains without interruption, then again stopping at a mid-epoch
checkpoint, then resumes from that checkpoint with fresh objects, and
compares every batch's bytes, every loss and the final weights.

::

    python samples/python/torch_unet.py --data DATA --size 512 --batch-size 16 --epochs 5
    python samples/python/torch_unet.py --size 64 --width 8 --resume-check      # a small demo, made here
    python samples/python/torch_unet.py --data DATA --recipe mmseg-like         # aspect kept, random scale + crop

Without ``--data`` (or with a ``--data`` folder that does not exist) a demo
dataset is generated with ``segfeed make-demo`` (``--segfeed-cli``, else
$SEGFEED_CLI, else ``segfeed`` on the PATH).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Tuple

import torch
from torch import nn

import segfeed
import segfeed.torch

MiB = float(1 << 20)


# -- the model ------------------------------------------------------------------


def conv_block(in_channels: int, out_channels: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, 3, padding=1, bias=False), nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
        nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False), nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True))


class UNet(nn.Module):
    """U-Net: ``depth`` levels down and up with skip connections, one output channel (logits).

    ``width`` is the channels of the first level, doubled at each level down;
    width 32 and depth 4 give 7.8M parameters. The input size must be a
    multiple of 2**depth.
    """

    def __init__(self, width: int = 32, depth: int = 4) -> None:
        super().__init__()
        channels = [width << level for level in range(depth + 1)]
        self.down = nn.ModuleList(
            [conv_block(3 if level == 0 else channels[level - 1], channels[level]) for level in range(depth)])
        self.pool = nn.MaxPool2d(2)
        self.bottom = conv_block(channels[depth - 1], channels[depth])
        self.up = nn.ModuleList(
            [nn.ConvTranspose2d(channels[level + 1], channels[level], 2, stride=2) for level in reversed(range(depth))])
        self.merge = nn.ModuleList(
            [conv_block(2 * channels[level], channels[level]) for level in reversed(range(depth))])
        self.head = nn.Conv2d(channels[0], 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for block in self.down:
            x = block(x)
            skips.append(x)
            x = self.pool(x)
        x = self.bottom(x)
        for up, merge, skip in zip(self.up, self.merge, reversed(skips)):
            x = merge(torch.cat([up(x), skip], dim=1))
        return self.head(x)


# -- measuring --------------------------------------------------------------------


def rss_bytes() -> int:
    """The process's resident set size now (Linux), else its peak."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def batch_digest(images: torch.Tensor, masks: torch.Tensor) -> str:
    """SHA-256 of a pair's bytes (in NCHW order, whatever the strides)."""
    digest = hashlib.sha256()
    digest.update(images.contiguous().numpy().tobytes())
    digest.update(masks.contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


def weights_digest(model: nn.Module) -> str:
    digest = hashlib.sha256()
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()[:16]


# -- the dataset ------------------------------------------------------------------


def find_cli(given: Optional[str]) -> str:
    cli = given or os.environ.get("SEGFEED_CLI") or shutil.which("segfeed")
    if not cli:
        sys.exit("no segfeed command to make the demo dataset: pass --segfeed-cli, set SEGFEED_CLI or put "
                 "segfeed on the PATH (or give --data with a dataset)")
    return cli


def ensure_dataset(args: argparse.Namespace, temporary: str) -> pathlib.Path:
    """The dataset root: --data if it exists, else a demo made there (or in ``temporary``)."""
    if args.data and pathlib.Path(args.data, "train").is_dir():
        return pathlib.Path(args.data)
    root = pathlib.Path(args.data) if args.data else pathlib.Path(temporary) / "data"
    if root.exists() and any(root.iterdir()):
        sys.exit(f"{root} has no train/ folder and is not empty: give a dataset in Carvana's layout, or a new folder "
                 "for a demo")
    width, height = (int(v) for v in args.demo_size.lower().split("x"))
    print(f"making a demo dataset: {args.demo_count} pairs of {width}x{height} in {root}", flush=True)
    subprocess.run([find_cli(args.segfeed_cli), "make-demo", str(root), "--count", str(args.demo_count),
                    "--width", str(width), "--height", str(height), "--seed", str(args.seed)],
                   check=True, stdout=subprocess.DEVNULL)
    return root


def recipe_augments(recipe: str) -> Tuple[segfeed.Augment, segfeed.Augment]:
    """The training and validation augmentation of a --recipe: ``stretch`` (each photo
    stretched to the square, flips, rotation, colour), or ``mmseg-like`` (aspect kept,
    random scale 0.5-2.0 and crop, left-right flips, colour; validation fitted and padded).
    Binary masks have no class to balance: the recipe's crop_max_class_ratio stays at 1."""
    train = (dataclasses.replace(segfeed.Augment.mmseg_like(), crop_max_class_ratio=1.0)
             if recipe == "mmseg-like" else segfeed.Augment())
    return train, train.for_validation()


def make_loaders(args: argparse.Namespace, data: pathlib.Path) -> Tuple[segfeed.Loader, segfeed.Loader]:
    """The training subset, augmented, and the validation subset, without augmentation,
    split by the seed (the same split for both, so they never overlap)."""
    common = dict(batch_size=args.batch_size, size=args.size, layout=args.layout, seed=args.seed,
                  threads=args.threads, prefetch_batches=args.prefetch, validation_fraction=args.validation_fraction)
    train_augment, validation_augment = recipe_augments(args.recipe)
    train = segfeed.Loader(data, subset="train", augment=train_augment, **common)
    validation = segfeed.Loader(data, subset="validation", shuffle=False, augment=validation_augment, **common)
    return train, validation


# -- training ---------------------------------------------------------------------


class Run:
    """One training run: model, optimizer, loaders, and what it saw."""

    def __init__(self, args: argparse.Namespace, data: pathlib.Path, quiet: bool = False) -> None:
        self.args, self.quiet = args, quiet
        self.device = torch.device(args.device)
        torch.manual_seed(args.seed)
        self.model = UNet(args.width, args.depth).to(self.device)
        if args.layout == "nhwc":
            self.model = self.model.to(memory_format=torch.channels_last)  # runs on the NHWC buffer as it is
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr)
        self.criterion = nn.BCEWithLogitsLoss()
        self.warm_up()
        self.rss_before_loaders = rss_bytes()
        self.input_rss: Optional[int] = None  # what loading added, measured before the first training step
        self.train_loader, self.validation_loader = make_loaders(args, data)
        self.start_epoch, self.start_batch = 0, 0
        self.resumed = False  # by resume(): the first epoch continues where the loader stands
        self.steps: List[Tuple[int, int, str, float]] = []  # (epoch, batch, digest, loss), with --resume-check

    def warm_up(self) -> None:
        """One step of a copy of the model on zeros, before the loaders exist, so that the
        RSS the loaders add is not mixed with the trainer's first allocations."""
        model = copy.deepcopy(self.model)
        size, batch = self.args.size, self.args.batch_size
        x = torch.zeros(batch, 3, size, size, device=self.device)
        if self.args.layout == "nhwc":
            x = x.to(memory_format=torch.channels_last)
        self.criterion(model(x), torch.zeros(batch, 1, size, size, device=self.device)).backward()
        del model, x

    def say(self, text: str) -> None:
        if not self.quiet:
            print(text, flush=True)

    def save(self, path: str) -> None:
        """A checkpoint: the model, the optimizer and where the input stream is. Written
        beside `path` and renamed over it when complete, so a crash while saving
        leaves the previous checkpoint whole."""
        partial = f"{path}.partial"
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "loader": self.train_loader.state_dict(), "torch_rng": torch.get_rng_state()}, partial)
        os.replace(partial, path)

    def resume(self, path: str) -> None:
        checkpoint = torch.load(path, map_location=self.device)
        self.model.load_state_dict(checkpoint["model"])
        self.optimizer.load_state_dict(checkpoint["optimizer"])
        torch.set_rng_state(checkpoint["torch_rng"])
        # Refuses a checkpoint of other options or another dataset listing. One of
        # another world size (a DDP job's) continues with the rest of its epoch.
        saved = checkpoint["loader"]
        self.train_loader.load_state_dict(saved)
        here = self.train_loader.state_dict()  # where iter(loader) goes now
        self.start_epoch, self.start_batch = here["epoch"], here["next_batch"]
        self.resumed = True
        resharded = (f" of the rest after the {here['shard_start']} samples that world size {saved['world_size']} "
                     f"trained" if here["shard_start"] else "")
        self.say(f"resumed from {path}: epoch {self.start_epoch + 1} at batch {self.start_batch}{resharded}")

    def steps_per_epoch(self) -> int:
        batches = self.train_loader.batches_per_epoch
        return min(batches, self.args.steps) if self.args.steps else batches

    def train(self, checkpoint: Optional[str] = None, stop_at_checkpoint: bool = False) -> bool:
        """Trains from where the run stands to the last epoch; False when it stopped at a checkpoint."""
        args = self.args
        keep_digests = args.resume_check
        middle = max(1, self.steps_per_epoch() // 2)
        for epoch in range(self.start_epoch, args.epochs):
            resuming = self.resumed and epoch == self.start_epoch
            first = self.start_batch if resuming else 0
            self.model.train()
            started = time.perf_counter()
            wait = loss_sum = 0.0
            steps = 0
            images = masks = None
            # A resumed epoch continues where load_state_dict() put the loader.
            pairs = iter(segfeed.torch.batches(self.train_loader, None if resuming else epoch))
            for batch_index in range(first, min(first + len(pairs), self.steps_per_epoch())):
                waiting = time.perf_counter()
                images, masks = next(pairs)
                images, masks = segfeed.torch.to_device(images, masks, self.device)
                wait += time.perf_counter() - waiting
                if self.input_rss is None:
                    self.input_rss = rss_bytes() - self.rss_before_loaders
                if keep_digests:
                    self.steps.append((epoch, batch_index, batch_digest(images.cpu(), masks.cpu()), 0.0))
                self.optimizer.zero_grad(set_to_none=True)
                loss = self.criterion(self.model(images), masks)
                loss.backward()
                self.optimizer.step()
                loss_sum += loss.item()
                steps += 1
                if keep_digests:
                    self.steps[-1] = self.steps[-1][:3] + (loss.item(),)
                if checkpoint and batch_index + 1 == middle:
                    self.save(checkpoint)
                    self.say(f"  checkpoint: {checkpoint} (epoch {epoch + 1}, next batch {batch_index + 1})")
                    if stop_at_checkpoint:
                        return False
            del images, masks
            segfeed.torch.synchronize()  # the last copy's buffer goes back to the pool
            elapsed = time.perf_counter() - started
            validation_loss, validation_batches = self.validate(epoch)
            self.report(epoch, loss_sum / max(steps, 1), steps, validation_loss, validation_batches, elapsed, wait)
        return True

    def validate(self, epoch: int) -> Tuple[float, int]:
        self.model.eval()
        total, batches = 0.0, 0
        with torch.no_grad():
            for images, masks in segfeed.torch.batches(self.validation_loader, epoch):
                images, masks = segfeed.torch.to_device(images, masks, self.device)
                total += self.criterion(self.model(images), masks).item()
                batches += 1
        segfeed.torch.synchronize()
        return total / max(batches, 1), batches

    def report(self, epoch: int, loss: float, steps: int, validation_loss: float, validation_batches: int,
               elapsed: float, wait: float) -> None:
        loaders = (self.train_loader, self.validation_loader)
        plan = sum(loader.plan()["total_bytes"] for loader in loaders)
        stats = [loader.stats() for loader in loaders]
        pools = sum(s["pool_bytes"] for s in stats)
        scratch = sum(s["scratch_bytes"] for s in stats)
        read_buffers = sum(s["peak_read_buffer_bytes"] for s in stats)
        rss = rss_bytes()
        self.say(f"epoch {epoch + 1}/{self.args.epochs}: loss {loss:.4f}, validation loss {validation_loss:.4f} "
                 f"({validation_batches} batches), {steps} steps in {elapsed:.1f} s, "
                 f"input wait {wait:.2f} s ({100 * wait / max(elapsed, 1e-9):.1f}%)")
        input_rss = ("" if self.input_rss is None else
                     f"RSS {self.input_rss / MiB:+.1f} MiB when the first batch arrived, ")
        self.say(f"  input memory (train + validation loaders): plan at most {plan / MiB:.1f} MiB; pools "
                 f"{pools / MiB:.1f} MiB {stats[0]['pool_kind']}, scratch {scratch / MiB:.1f} MiB, read buffers "
                 f"{read_buffers / MiB:.1f} MiB at peak; measured: {input_rss}{rss / MiB:.1f} MiB in all now "
                 f"(the model's included)")

    def close(self) -> None:
        self.train_loader.close()
        self.validation_loader.close()


def resume_check(args: argparse.Namespace, data: pathlib.Path) -> int:
    """Trains uninterrupted, then stops at a mid-epoch checkpoint and resumes from it with
    fresh objects; 0 when the resumed run saw the same bytes and reached the same weights."""
    with tempfile.TemporaryDirectory(prefix="segfeed-resume-") as folder:
        checkpoint = os.path.join(folder, "checkpoint.pt")
        print("resume check: the uninterrupted run", flush=True)
        reference = Run(args, data)
        reference.train()
        reference.close()
        print("resume check: a run stopped at its first checkpoint", flush=True)
        interrupted = Run(args, data)
        interrupted.train(checkpoint=checkpoint, stop_at_checkpoint=True)
        interrupted.close()
        print("resume check: a fresh run resumed from that checkpoint", flush=True)
        resumed = Run(args, data)
        resumed.resume(checkpoint)
        resumed.train()
        resumed.close()
    seen = interrupted.steps + resumed.steps
    batches_same = [s[:3] for s in seen] == [s[:3] for s in reference.steps]
    losses_same = [s[3] for s in seen] == [s[3] for s in reference.steps]
    weights_same = weights_digest(resumed.model) == weights_digest(reference.model)
    print(f"resume check: {len(reference.steps)} steps; resumed at epoch {resumed.start_epoch + 1} batch "
          f"{resumed.start_batch} after {len(interrupted.steps)} steps; batches "
          f"{'identical' if batches_same else 'DIFFERENT'}, losses {'identical' if losses_same else 'DIFFERENT'}, "
          f"final weights {'identical' if weights_same else 'DIFFERENT'}")
    return 0 if batches_same and losses_same and weights_same else 1


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--data", help="dataset root in Carvana's layout (train/, train_masks/); a demo is made "
                                       "there when it has no train/ folder (default: in a temporary folder)")
    parser.add_argument("--demo-count", type=int, default=48, help="pairs in a generated demo")
    parser.add_argument("--demo-size", default="480x320", help="WIDTHxHEIGHT of a generated demo's photos")
    parser.add_argument("--segfeed-cli", help="the segfeed command, to make a demo")
    parser.add_argument("--size", type=int, default=512, help="training size in pixels (square)")
    parser.add_argument("--recipe", choices=("stretch", "mmseg-like"), default="stretch",
                        help="stretch: each photo stretched to the square; mmseg-like: aspect kept, random scale "
                             "0.5-2.0 and crop, padded (validation: fitted and padded)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--steps", type=int, default=0, help="at most this many training steps per epoch (0: all)")
    parser.add_argument("--width", type=int, default=32, help="U-Net channels at the first level (32: 7.8M "
                                                              "parameters)")
    parser.add_argument("--depth", type=int, default=4, help="U-Net levels; --size must be a multiple of 2**depth")
    parser.add_argument("--layout", choices=("nchw", "nhwc"), default="nchw",
                        help="nhwc trains a channels_last model on the NHWC buffer")
    parser.add_argument("--threads", type=int, default=0, help="segfeed decode threads (0: one per core)")
    parser.add_argument("--prefetch", type=int, default=2, help="segfeed pool buffers")
    parser.add_argument("--validation-fraction", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--checkpoint", help="save model, optimizer and loader state here in the middle of each "
                                             "epoch")
    parser.add_argument("--resume", help="continue from this checkpoint")
    parser.add_argument("--resume-check", action="store_true",
                        help="prove that a run resumed from a mid-epoch checkpoint continues byte-identically")
    args = parser.parse_args(argv)
    if args.size % (1 << args.depth):
        parser.error(f"--size must be a multiple of 2**depth = {1 << args.depth} (got {args.size})")
    if args.checkpoint and not os.path.isdir(os.path.dirname(os.path.abspath(args.checkpoint))):
        parser.error(f"--checkpoint {args.checkpoint}: no folder {os.path.dirname(os.path.abspath(args.checkpoint))}")
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="segfeed-demo-") as temporary:
        return train(args, ensure_dataset(args, temporary))


def train(args: argparse.Namespace, data: pathlib.Path) -> int:
    if args.resume_check:
        return resume_check(args, data)
    run = Run(args, data)
    parameters = sum(p.numel() for p in run.model.parameters())
    print(f"U-Net {parameters / 1e6:.2f}M parameters on {run.device}; recipe {args.recipe}; {run.train_loader}; "
          f"validation: {run.validation_loader.samples_per_epoch} samples, no augmentation "
          f"(resize {run.validation_loader.options['resize']})", flush=True)
    if args.resume:
        run.resume(args.resume)
    run.train(checkpoint=args.checkpoint)
    run.close()
    # Two runs that saw the same batches in the same order end with the same digest.
    print(f"final weights: sha256 {weights_digest(run.model)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
