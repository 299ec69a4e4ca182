"""Train a small U-Net with Keras 3 (TensorFlow backend) on segfeed batches.

The scenario segfeed was made for: Carvana-style pairs (JPEG photo + GIF
mask), resized to 512x512, batches of 16, a 5% validation split without
augmentation, and an input stage whose memory is known before it starts.

    segfeed make-demo data --count 200            # or a real Carvana folder
    python keras_unet.py --data data --size 512 --batch-size 16 --epochs 3
    python keras_unet.py --data data --size 512 --recipe mmseg-like   # aspect kept, random scale + crop

Per epoch it prints the loss, the validation loss, how long the input
thread waited for segfeed's batches, and the input stage's memory: what
``plan()`` said before the first batch next to the process's RSS.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402

import segfeed  # noqa: E402
import segfeed.keras  # noqa: E402

MiB = 1 << 20


def unet(size: int, width: int) -> keras.Model:
    """A U-Net of three levels, `width` filters at the top."""

    def block(x, filters):
        x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        return keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)

    inputs = keras.Input((size, size, 3))
    skips, x = [], inputs
    for level in range(3):
        x = block(x, width << level)
        skips.append(x)
        x = keras.layers.MaxPooling2D()(x)
    x = block(x, width << 3)
    for level in reversed(range(3)):
        x = keras.layers.Conv2DTranspose(width << level, 2, strides=2, padding="same")(x)
        x = block(keras.layers.Concatenate()([x, skips[level]]), width << level)
    outputs = keras.layers.Conv2D(1, 1, activation="sigmoid")(x)
    return keras.Model(inputs, outputs, name="unet")


def rss_mib() -> tuple:
    """(current, peak) resident set of this process in MiB."""
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                fields[key] = int(value.split()[0]) / 1024
    return fields.get("VmRSS", 0.0), fields.get("VmHWM", 0.0)


def peak_input_bytes(loader: segfeed.Loader) -> int:
    """The most the loader held: its pool, and the peaks of its decode scratch and file buffers."""
    stats = loader.stats()
    return stats["pool_bytes"] + stats["peak_scratch_bytes"] + stats["peak_read_buffer_bytes"]


class InputReport(keras.callbacks.Callback):
    """Prints, per epoch, the loss, the input wait and the input stage's memory."""

    def __init__(self, train: segfeed.Loader, validation: segfeed.Loader, data: segfeed.keras.Dataset):
        super().__init__()
        self.loaders = (train, validation)
        self.data = data
        self.plan_bytes = sum(loader.plan()["total_bytes"] for loader in self.loaders)
        self.waited = 0.0

    def on_epoch_begin(self, epoch, logs=None):
        self.started = time.perf_counter()
        self.waited = self._consumer_wait()
        self.in_getitem = self.data.input_seconds

    def on_epoch_end(self, epoch, logs=None):
        seconds = time.perf_counter() - self.started
        waited = self._consumer_wait() - self.waited
        held = sum(peak_input_bytes(loader) for loader in self.loaders)
        rss, peak = rss_mib()
        print(f"epoch {epoch}: loss {logs['loss']:.4f}, val_loss {logs.get('val_loss', float('nan')):.4f}, "
              f"{seconds:.1f} s; input waited {waited:.2f} s for segfeed "
              f"({self.data.input_seconds - self.in_getitem:.2f} s in __getitem__ with the copy); "
              f"input memory: plan {self.plan_bytes / MiB:.1f} MiB, peak held {held / MiB:.1f} MiB; "
              f"process RSS {rss:.0f} MiB (peak {peak:.0f} MiB)", flush=True)

    def _consumer_wait(self) -> float:
        return sum(loader.stats()["stage_seconds"]["consumer_wait"] for loader in self.loaders)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="dataset root in Carvana's layout (train/, train_masks/)")
    parser.add_argument("--size", type=int, default=512, help="square output size (default 512)")
    parser.add_argument("--recipe", choices=("stretch", "mmseg-like"), default="stretch",
                        help="stretch: each photo stretched to the square (default); mmseg-like: aspect kept, "
                             "random scale 0.5-2.0 and crop, padded (validation: fitted and padded)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--width", type=int, default=16, help="filters of the U-Net's first level")
    parser.add_argument("--threads", type=int, default=0, help="segfeed decode threads (0: one per core)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.size % 8:
        parser.error(f"--size must be a multiple of 8: the U-Net halves it three times (got {args.size})")

    keras.utils.set_random_seed(args.seed)
    common = dict(batch_size=args.batch_size, size=args.size, seed=args.seed, threads=args.threads,
                  validation_fraction=0.05, on_bad_file="skip")
    # Whole batches only: a short last batch would make TensorFlow trace the step again.
    rss_before, _ = rss_mib()
    # Binary masks have no class to balance: the recipe's crop_max_class_ratio stays at 1.
    augment = (dataclasses.replace(segfeed.Augment.mmseg_like(), crop_max_class_ratio=1.0)
               if args.recipe == "mmseg-like" else segfeed.Augment())
    train = segfeed.Loader(args.data, subset="train", drop_last=True, augment=augment, **common)
    validation = segfeed.Loader(args.data, subset="validation", shuffle=False, augment=augment.for_validation(),
                                **common)  # no augmentation
    print(f"train: {train}\nvalidation: {validation}")
    rss_after, _ = rss_mib()
    print(f"input plan: train {train.plan()['total_bytes'] / MiB:.1f} MiB + validation "
          f"{validation.plan()['total_bytes'] / MiB:.1f} MiB at most; the pools are allocated up front: "
          f"RSS +{rss_after - rss_before:.1f} MiB", flush=True)

    model = unet(args.size, args.width)
    model.compile(optimizer=keras.optimizers.Adam(1e-3), loss="binary_crossentropy")
    print(f"model: {model.count_params()} parameters", flush=True)
    train_data = segfeed.keras.Dataset(train)
    validation_data = segfeed.keras.Dataset(validation)
    with train, validation:
        model.fit(train_data, validation_data=validation_data, epochs=args.epochs, shuffle=False, verbose=0,
                  callbacks=[InputReport(train, validation, train_data)])
        stats = train.stats()
        print(f"train loader: {stats['samples_loaded']} samples loaded, {stats['samples_skipped']} skipped, "
              f"{stats['batches_delivered']} batches")


if __name__ == "__main__":
    main()
