"""segfeed.torch: an epoch as torch tensors without a copy, the DataLoader Dataset, to_device's hold."""

import gc

import pytest
import segfeed

torch = pytest.importorskip("torch")
import segfeed.torch  # noqa: E402  (needs torch)

from conftest import run_python  # noqa: E402

# 10 pairs in batches of 4, 4 and a short 2; 2 pool buffers.
OPTIONS = dict(batch_size=4, size=(32, 48), threads=2, seed=5, prefetch_batches=2)


def held(loader):
    return loader.stats()["outstanding_leases"]


def reference(demo, epoch, **options):
    """The loader's own stream of `epoch`, copied: (epoch, index, sample ids, images N x 3 x H x W,
    masks N x 1 x H x W) per batch."""
    out = []
    with segfeed.Loader(demo, **{**OPTIONS, **options}) as loader:
        for batch in loader.epoch(epoch):
            with batch:
                images = torch.from_dlpack(batch.images).clone()
                if batch.layout == "nhwc":
                    images = images.permute(0, 3, 1, 2)
                masks = torch.from_dlpack(batch.masks).clone().permute(0, 3, 1, 2)
                out.append((batch.epoch, batch.index, list(batch.sample_ids), images, masks))
    return out


def assert_same_stream(seen, expected):
    assert [s[:3] for s in seen] == [e[:3] for e in expected]
    for s, e in zip(seen, expected):
        assert torch.equal(s[3], e[3]) and torch.equal(s[4], e[4])


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_pairs_are_the_loaders_stream_in_order(demo, layout):
    with segfeed.Loader(demo, layout=layout, **OPTIONS) as loader:
        for epoch in (0, 1):
            seen = []
            for images, masks, info in segfeed.torch.batches(loader, epoch, info=True):
                assert set(info) == {"epoch", "index", "sample_ids", "params"}
                assert len(info["params"]) == len(info["sample_ids"]) == images.shape[0]
                seen.append((info["epoch"], info["index"], info["sample_ids"], images.clone(), masks.clone()))
            assert_same_stream(seen, reference(demo, epoch, layout=layout))


def test_pairs_point_at_the_pool_memory(demo, monkeypatch):
    exported = []
    from_dlpack = torch.from_dlpack

    def spy(tensor):
        exported.append(tensor.data_ptr)  # the segfeed.Tensor's pool address
        return from_dlpack(tensor)

    monkeypatch.setattr(torch, "from_dlpack", spy)
    with segfeed.Loader(demo, layout="nchw", **OPTIONS) as loader:
        for images, masks in segfeed.torch.batches(loader, 0):
            assert exported[-2:] == [images.data_ptr(), masks.data_ptr()]
            assert images.data_ptr() % 64 == 0 and masks.data_ptr() % 64 == 0
            assert held(loader) == 1  # the pair itself holds the buffer; the adapter released its Batch


def test_nchw_is_contiguous_and_nhwc_is_a_channels_last_view_of_the_same_pixels(demo):
    with segfeed.Loader(demo, layout="nchw", **OPTIONS) as planar, \
            segfeed.Loader(demo, layout="nhwc", **OPTIONS) as interleaved:
        (a, a_masks), (b, b_masks) = next(segfeed.torch.batches(planar, 0)), next(segfeed.torch.batches(interleaved, 0))
        assert a.shape == b.shape == (4, 3, 32, 48) and a_masks.shape == b_masks.shape == (4, 1, 32, 48)
        assert a.is_contiguous() and not a.is_contiguous(memory_format=torch.channels_last)
        assert b.is_contiguous(memory_format=torch.channels_last) and not b.is_contiguous()
        assert b.stride() == (32 * 48 * 3, 1, 48 * 3, 3)
        assert a_masks.is_contiguous() and b_masks.is_contiguous(memory_format=torch.channels_last)
        assert torch.equal(a, b) and torch.equal(a_masks, b_masks)
        assert a.dtype == torch.float32 and set(a_masks.unique().tolist()) <= {0.0, 1.0}


def test_dtypes_follow_the_loader(demo):
    with segfeed.Loader(demo, image_dtype="float16", mask_dtype="uint8", **OPTIONS) as loader:
        images, masks = next(segfeed.torch.batches(loader, 0))
        assert images.dtype == torch.float16 and masks.dtype == torch.uint8


def test_a_pair_holds_its_buffer_until_every_tensor_and_view_is_gone(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = segfeed.torch.batches(loader, 0)
        images, masks = next(pairs)
        assert held(loader) == 1
        first_image = images[:1, :1]
        del images
        gc.collect()
        assert held(loader) == 1
        del masks
        gc.collect()
        assert held(loader) == 1
        del first_image
        assert held(loader) == 0  # no garbage collection needed: reference counting returns it


def test_holding_every_buffer_raises_pool_exhausted(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = segfeed.torch.batches(loader, 0)
        kept = [next(pairs), next(pairs)]
        with pytest.raises(segfeed.PoolExhaustedError):
            next(pairs)
        del kept
        images, masks = next(pairs)  # the loader goes on
        assert images.shape[0] == 2


def test_len_first_batch_and_the_short_last_batch(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = segfeed.torch.batches(loader, 3)
        assert len(pairs) == 3 and pairs.epoch == 3 and pairs.first_batch == 0
        assert [images.shape[0] for images, _ in pairs] == [4, 4, 2]
        rest = segfeed.torch.batches(loader, 1, first_batch=2, info=True)
        assert len(rest) == 1 and "epoch 1, from batch 2" in repr(rest)
        seen = [(i["epoch"], i["index"], i["sample_ids"], x.clone(), y.clone()) for x, y, i in rest]
        assert_same_stream(seen, reference(demo, 1)[2:])
        assert list(segfeed.torch.batches(loader, 0, first_batch=3)) == []  # a finished epoch
        with pytest.raises(segfeed.ConfigError, match="first_batch"):
            segfeed.torch.batches(loader, 0, first_batch=4)  # at the call, not at the first next()


def test_dataloader_runs_the_loaders_epochs_in_turn(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        dataset = segfeed.torch.Dataset(loader, info=True)
        data = torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=0)
        assert len(data) == len(dataset) == 3
        for epoch in (0, 1):
            seen = [(i["epoch"], i["index"], i["sample_ids"], x.clone(), y.clone()) for x, y, i in data]
            assert_same_stream(seen, reference(demo, epoch))
        images, masks = next(iter(torch.utils.data.DataLoader(segfeed.torch.Dataset(loader), batch_size=None)))
        assert images.shape == (4, 3, 32, 48) and masks.shape == (4, 1, 32, 48)


def test_dataset_state_dict_resumes_mid_epoch_byte_identically(demo, tmp_path):
    checkpoint = tmp_path / "checkpoint.pt"
    with segfeed.Loader(demo, **OPTIONS) as loader:
        dataset = segfeed.torch.Dataset(loader)
        for step, (images, masks) in enumerate(torch.utils.data.DataLoader(dataset, batch_size=None)):
            if step == 1:  # after two batches: the job is interrupted here
                torch.save({"data": dataset.state_dict()}, checkpoint)
                break
    del images, masks
    with segfeed.Loader(demo, threads=1, prefetch_batches=3, **{k: v for k, v in OPTIONS.items()
                                                               if k not in ("threads", "prefetch_batches")}) as loader:
        dataset = segfeed.torch.Dataset(loader, info=True)
        dataset.load_state_dict(torch.load(checkpoint)["data"])
        data = torch.utils.data.DataLoader(dataset, batch_size=None)
        rest = [(i["epoch"], i["index"], i["sample_ids"], x.clone(), y.clone()) for x, y, i in data]
        assert_same_stream(rest, reference(demo, 0)[2:])
        following = [(i["epoch"], i["index"], i["sample_ids"], x.clone(), y.clone()) for x, y, i in data]
        assert_same_stream(following, reference(demo, 1))
    with segfeed.Loader(demo, **{**OPTIONS, "seed": 6}) as other:
        with pytest.raises(segfeed.ConfigError, match="seed"):
            segfeed.torch.Dataset(other).load_state_dict(torch.load(checkpoint)["data"])


def test_an_exception_leaving_a_dataloader_loop_keeps_the_epoch_where_it_stopped(demo):
    # The preemption pattern: the loop raises (SIGTERM -> sys.exit, an error)
    # and the checkpoint is written in finally:. It must continue the epoch.
    with segfeed.Loader(demo, **OPTIONS) as loader:
        dataset = segfeed.torch.Dataset(loader)
        with pytest.raises(SystemExit):
            try:
                for step, (images, masks) in enumerate(torch.utils.data.DataLoader(dataset, batch_size=None)):
                    if step == 1:
                        raise SystemExit(3)
            finally:
                state = dataset.state_dict()
        del images, masks
        assert (state["epoch"], state["next_batch"]) == (0, 2)
        rest = [x.shape[0] for x, _ in torch.utils.data.DataLoader(dataset, batch_size=None)]
        assert rest == [2]  # the short last batch: the rest of epoch 0, not epoch 1


WORKERS = """
    import sys
    import torch, segfeed, segfeed.torch

    loader = segfeed.Loader(sys.argv[1], batch_size=4, size=(32, 48), threads=2)
    dataset = segfeed.torch.Dataset(loader)
    for context in ("fork", "spawn"):
        received = 0
        try:
            for images, masks in torch.utils.data.DataLoader(dataset, batch_size=None, num_workers=2,
                                                             multiprocessing_context=context):
                received += 1
            print(context, "no error", received)
        except Exception as e:
            print(context, type(e).__name__, received, "num_workers=0" in str(e))
    # The main process's loader still streams whole epochs.
    print("main", sum(1 for _ in torch.utils.data.DataLoader(dataset, batch_size=None)))
"""


def test_dataloader_workers_get_the_cores_error_and_no_batch(demo):
    result = run_python(WORKERS, str(demo), timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.split("\n")
    fork, spawn, main = (line.split() for line in lines[:3])
    assert fork[0] == "fork" and fork[1] in ("Error", "RuntimeError") and fork[2:] == ["0", "True"], lines
    assert spawn[0] == "spawn" and spawn[1] in ("Error", "RuntimeError") and spawn[2:] == ["0", "True"], lines
    assert main == ["main", "3"]


def test_to_device_on_the_cpu_is_no_copy(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        images, masks = next(segfeed.torch.batches(loader, 0))
        on_cpu = segfeed.torch.to_device(images, masks, "cpu")
        assert on_cpu[0] is images and on_cpu[1] is masks
        assert segfeed.torch._pending_count() == 0


class FakeEvent:
    """A CUDA event without a GPU: completes when synchronized."""

    def __init__(self):
        self.stream, self.done = None, False

    def record(self, stream):
        self.stream = stream

    def synchronize(self):
        self.done = True


class HostTensor:
    """A pair's tensor whose copy to a device is a record of the call."""

    def __init__(self, tensor):
        self.tensor, self.copies = tensor, []

    def to(self, device, non_blocking=False):
        self.copies.append((str(device), non_blocking))
        return ("on", str(device))


def test_to_device_holds_the_buffer_until_an_event_after_the_copy_completes(demo, monkeypatch):
    events = []

    def make_event():
        events.append(FakeEvent())
        return events[-1]

    monkeypatch.setattr(torch.cuda, "Event", make_event)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: f"current stream of {device}")
    with segfeed.Loader(demo, **OPTIONS) as loader:
        pairs = segfeed.torch.batches(loader, 0)
        images, masks = (HostTensor(t) for t in next(pairs))
        assert segfeed.torch.to_device(images, masks, "cuda:0") == (("on", "cuda:0"), ("on", "cuda:0"))
        assert images.copies == masks.copies == [("cuda:0", True)]
        assert events[0].stream == "current stream of cuda:0" and not events[0].done
        del images, masks
        assert held(loader) == 1  # only to_device holds the pair now: the copy may still read it
        images, masks = (HostTensor(t) for t in next(pairs))
        segfeed.torch.to_device(images, masks, "cuda:0")
        # The next call waited for the first copy and let its buffer go.
        assert events[0].done and not events[1].done
        assert held(loader) == 1 and segfeed.torch._pending_count() == 1
        del images, masks
        assert held(loader) == 1
        segfeed.torch.synchronize()
        assert events[1].done and held(loader) == 0 and segfeed.torch._pending_count() == 0
        # A blocking copy is complete on return: nothing held, no event.
        images, masks = (HostTensor(t) for t in next(pairs))
        segfeed.torch.to_device(images, masks, "cuda:0", non_blocking=False)
        assert images.copies == [("cuda:0", False)] and len(events) == 2
        del images, masks
        assert held(loader) == 0


def test_importing_segfeed_does_not_import_torch_and_the_adapter_does():
    result = run_python("""
        import sys
        import segfeed
        print("torch" in sys.modules)
        import segfeed.torch
        print("torch" in sys.modules, "tensorflow" in sys.modules)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True", "False"]


def test_without_torch_the_adapter_says_what_is_missing():
    result = run_python("""
        import sys
        sys.modules["torch"] = None  # as if PyTorch were not installed
        import segfeed
        try:
            import segfeed.torch
        except ImportError as e:
            print(e)
    """)
    assert result.returncode == 0, result.stderr
    assert "segfeed.torch needs PyTorch" in result.stdout


def test_public_names_have_docstrings():
    for name in segfeed.torch.__all__:
        assert getattr(segfeed.torch, name).__doc__, name
    for name in ("state_dict", "load_state_dict", "__len__"):
        assert getattr(segfeed.torch.Dataset, name).__doc__, name
