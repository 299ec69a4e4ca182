"""Train a small U-Net with Keras 3 under tf.distribute, one segfeed loader per input pipeline.

::

    # one process, MirroredStrategy over its devices (here the CPU split in two), through model.fit
    python samples/python/keras_distributed.py --data data --cpu-replicas 2 --size 64 --global-batch-size 8
    # two worker processes, MultiWorkerMirroredStrategy: TF_CONFIG names the cluster and this worker
    TF_CONFIG='{"cluster": {"worker": ["127.0.0.1:20001", "127.0.0.1:20002"]}, "task": {"type": "worker",
        "index": 0}}' python samples/python/keras_distributed.py --data data --strategy multi-worker
    # ... and the same with "index": 1 in a second shell

The input is ``segfeed.tf.distributed_dataset_fn``: the strategy calls it
once per input pipeline, and each call makes a loader of its own shard. With
``--strategy mirrored`` the sample passes ``InputReplicationMode.PER_REPLICA``,
so that each replica has its own pipeline and loader (``--input-pipelines
per-worker``: one loader for the process, each of its batches split among
the replicas). It records what every replica trained on (a digest of each
image, matched against the loader's epochs) and checks, per epoch, that the
replicas' samples were disjoint and covered the epoch.

``--strategy multi-worker`` trains through a custom loop (``strategy.run``):
Keras 3.15's ``model.fit`` fails under MultiWorkerMirroredStrategy before
its first step (it reduces the input batch and the metrics with a
cross-worker ``strategy.reduce`` that cannot take them; keras-team/keras
issue 20585). Each worker prints the samples it trained on; ``--report``
writes them as JSON for a check across the workers.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from typing import Dict, List, Optional, Sequence

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def image_digest(image: np.ndarray) -> str:
    """A short digest of one sample's image: how a replica's rows are traced back to sample ids."""
    return hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest()[:24]


class SampleIndex:
    """Sample ids by image digest, per loader epoch: segfeed draws a sample's augmentation from
    (seed, epoch, sample), so one unsharded loader with the same options gives every sample's bytes."""

    def __init__(self, make_loader) -> None:
        self._make_loader = make_loader
        self._epochs: Dict[int, Dict[str, int]] = {}

    def epoch(self, epoch: int) -> Dict[str, int]:
        if epoch not in self._epochs:
            with self._make_loader() as loader:
                self._epochs[epoch] = {image_digest(image): sample
                                       for batch in loader.epoch(epoch)
                                       for image, sample in zip(np.asarray(batch.images), batch.sample_ids)}
        return self._epochs[epoch]

    def identify(self, digests: Sequence[str], first_epoch: int = 0, last_epoch: int = 64) -> tuple:
        """(loader epoch, sample ids) of images that all come from one loader epoch."""
        for epoch in range(first_epoch, last_epoch + 1):
            index = self.epoch(epoch)
            if digests and all(digest in index for digest in digests):
                return epoch, [index[digest] for digest in digests]
        raise AssertionError(f"{len(digests)} images match no loader epoch {first_epoch}..{last_epoch}")


def cover_summary(per_replica: List[List[int]], samples: int) -> str:
    """One line on how the replicas' sample ids of one epoch cover it."""
    seen = [sample for ids in per_replica for sample in ids]
    repeated = len(seen) - len(set(seen))
    missing = samples - len(set(seen))
    return (f"{' + '.join(str(len(ids)) for ids in per_replica)} samples: "
            + ("disjoint" if not repeated else f"{repeated} repeated") + ", "
            + (f"all {samples} of the epoch" if not missing else f"{missing} of {samples} missing"))


def build_model(size: int, width: int):
    """The U-Net of keras_unet.py (the sample beside this one)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from keras_unet import unet  # noqa: E402
    return unet(size, width)


def train_mirrored(args, make_dataset_fn, index: SampleIndex, samples: int) -> dict:
    import keras
    if args.cpu_replicas:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * args.cpu_replicas)
        strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(args.cpu_replicas)])
    else:
        strategy = tf.distribute.MirroredStrategy()
    replicas = strategy.num_replicas_in_sync
    seen: List[tuple] = []  # (replica, image digests) per replica step

    def record(replica: tf.Tensor, images: tf.Tensor) -> None:
        seen.append((int(replica), [image_digest(image) for image in images.numpy()]))

    class RecordingModel(keras.Model):
        """Records, per replica step, the images the replica trains on."""

        def train_step(self, data):
            replica = tf.distribute.get_replica_context().replica_id_in_sync_group
            tf.py_function(record, [replica, data[0]], [])
            return super().train_step(data)

    mode = (tf.distribute.InputReplicationMode.PER_REPLICA if args.input_pipelines == "per-replica"
            else tf.distribute.InputReplicationMode.PER_WORKER)
    report = {"strategy": "mirrored", "replicas": replicas, "epochs": []}
    with strategy.scope(), make_dataset_fn() as dataset_fn:
        train = strategy.distribute_datasets_from_function(
            dataset_fn, tf.distribute.InputOptions(experimental_replication_mode=mode))
        print(f"{replicas} replicas, {len(dataset_fn.loaders)} input pipeline(s): "
              + "; ".join(map(repr, dataset_fn.loaders)), flush=True)
        base = build_model(args.size, args.width)
        model = RecordingModel(base.inputs, base.outputs)
        # jit_compile=False: the recording's py_function cannot be compiled by XLA.
        model.compile(optimizer=keras.optimizers.Adam(args.learning_rate), loss="binary_crossentropy",
                      jit_compile=False)

        class EpochReport(keras.callbacks.Callback):
            def on_epoch_begin(self, epoch, logs=None):
                self.started, self.first = time.perf_counter(), len(seen)

            def on_epoch_end(self, epoch, logs=None):
                steps = seen[self.first:]
                loader_epoch, _ = index.identify(steps[0][1], first_epoch=0)
                per_replica = [index.identify([d for r, ds in steps if r == replica for d in ds],
                                              loader_epoch, loader_epoch)[1] for replica in range(replicas)]
                print(f"epoch {epoch + 1}/{args.epochs}: loss {logs['loss']:.4f}, {len(steps) // replicas} steps "
                      f"of {replicas} replicas, {time.perf_counter() - self.started:.1f} s; trained on loader "
                      f"epoch {loader_epoch}: replicas got {cover_summary(per_replica, samples)}", flush=True)
                report["epochs"].append({"loss": logs["loss"], "loader_epoch": loader_epoch,
                                         "samples": per_replica})

        model.fit(train, epochs=args.epochs, verbose=0, shuffle=False, callbacks=[EpochReport()])  # segfeed shuffles
    return report


def train_multi_worker(args, make_dataset_fn, index: SampleIndex, samples: int) -> dict:
    import keras
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    worker = int(task.get("index", 0))
    report = {"strategy": "multi-worker", "worker": worker, "replicas": strategy.num_replicas_in_sync, "epochs": []}
    with make_dataset_fn() as dataset_fn:
        train = strategy.distribute_datasets_from_function(dataset_fn)
        print(f"worker {worker}: {strategy.num_replicas_in_sync} replicas; " + "; ".join(map(repr, dataset_fn.loaders)),
              flush=True)
        with strategy.scope():
            model = build_model(args.size, args.width)
            optimizer = keras.optimizers.Adam(args.learning_rate)

        @tf.function
        def train_step(images, masks):
            def step(images, masks):
                with tf.GradientTape() as tape:
                    predicted = model(images, training=True)
                    per_sample = tf.reduce_mean(keras.losses.binary_crossentropy(masks, predicted), axis=(1, 2))
                    loss = tf.nn.compute_average_loss(per_sample, global_batch_size=args.global_batch_size)
                gradients = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(gradients, model.trainable_variables))
                return loss
            return strategy.reduce("SUM", strategy.run(step, args=(images, masks)), axis=None)

        for epoch in range(args.epochs):
            started, losses, digests = time.perf_counter(), [], []
            for images, masks in train:  # each pass is every loader's next epoch
                for local in strategy.experimental_local_results(images):
                    digests += [image_digest(image) for image in local.numpy()]
                losses.append(float(train_step(images, masks)))
            loader_epoch, ids = index.identify(digests)
            print(f"worker {worker} epoch {epoch + 1}/{args.epochs}: loss {np.mean(losses):.4f}, {len(losses)} "
                  f"steps, {time.perf_counter() - started:.1f} s; trained on {len(ids)} samples of loader epoch "
                  f"{loader_epoch} (shard {dataset_fn.loaders[0].rank}/{dataset_fn.loaders[0].world_size})",
                  flush=True)
            report["epochs"].append({"loss": float(np.mean(losses)), "loader_epoch": loader_epoch, "samples": [ids]})
        weights = hashlib.sha256(b"".join(np.asarray(w).tobytes() for w in model.get_weights())).hexdigest()[:16]
        print(f"worker {worker}: weights {weights}", flush=True)
        report["weights"] = weights
    return report


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True, help="dataset root in Carvana's layout (train/, train_masks/)")
    parser.add_argument("--strategy", choices=("mirrored", "multi-worker"), default="mirrored")
    parser.add_argument("--cpu-replicas", type=int, default=0,
                        help="mirrored: split the CPU into this many logical devices (0: the devices TensorFlow "
                             "finds, every GPU)")
    parser.add_argument("--input-pipelines", choices=("per-replica", "per-worker"), default="per-replica",
                        help="mirrored: a loader per replica (default), or one per process")
    parser.add_argument("--size", type=int, default=64, help="square output size, a multiple of 8 (default 64)")
    parser.add_argument("--global-batch-size", type=int, default=8, help="samples per step over all replicas")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--width", type=int, default=4, help="filters of the U-Net's first level")
    parser.add_argument("--learning-rate", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=1, help="segfeed decode threads per loader")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", help="write the losses and the samples each replica trained on, as JSON")
    args = parser.parse_args(argv)
    if args.size % 8:
        parser.error(f"--size must be a multiple of 8: the U-Net halves it three times (got {args.size})")

    import keras
    import segfeed
    import segfeed.tf
    keras.utils.set_random_seed(args.seed)
    options = dict(size=args.size, seed=args.seed, threads=args.threads)
    samples = segfeed.Loader(args.data, batch_size=1, **options).samples_per_epoch
    index = SampleIndex(lambda: segfeed.Loader(args.data, batch_size=args.global_batch_size, **options))

    def make_dataset_fn() -> "segfeed.tf.DistributedDatasetFn":
        return segfeed.tf.distributed_dataset_fn(args.global_batch_size, args.data, **options)

    train = train_mirrored if args.strategy == "mirrored" else train_multi_worker
    report = train(args, make_dataset_fn, index, samples)
    if args.report:
        with open(args.report, "w") as out:
            json.dump(report, out)


if __name__ == "__main__":
    main()
