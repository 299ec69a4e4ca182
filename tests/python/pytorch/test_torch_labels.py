"""Multi-class label maps into PyTorch: int64 targets that CrossEntropyLoss(ignore_index=255) takes as
they come, VOC's 255 boundary and the rotated-in corners ignored, and the loss falls."""

import pytest
import segfeed

torch = pytest.importorskip("torch")
import segfeed.torch  # noqa: E402  (needs torch)

CLASSES = 5  # conftest's label_scenes


def test_label_batches_are_int64_class_ids_and_ignore(label_scenes):
    with segfeed.Loader(label_scenes, batch_size=4, size=64, layout="nchw", mask_mode="labels",
                        num_classes=CLASSES, seed=1, threads=2) as loader:
        assert loader.options["mask_dtype"] == "int64"
        values = set()
        for batch in loader.epoch(0):
            masks = torch.from_dlpack(batch.masks)
            assert masks.dtype == torch.int64
            values |= set(masks.unique().tolist())
        assert values <= set(range(CLASSES)) | {255}
        assert 255 in values and len(values & set(range(1, CLASSES))) >= 2, values


def test_uint8_labels_hold_the_same_ids(label_scenes):
    common = dict(batch_size=4, size=64, layout="nchw", mask_mode="labels", num_classes=CLASSES, seed=1, threads=2)
    with segfeed.Loader(label_scenes, **common) as wide, segfeed.Loader(label_scenes, mask_dtype="uint8", **common) as narrow:
        for a, b in zip(wide.epoch(0), narrow.epoch(0)):
            assert torch.equal(torch.from_dlpack(a.masks), torch.from_dlpack(b.masks).long())


def test_cross_entropy_with_ignore_index_trains(label_scenes):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(16, CLASSES, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss(ignore_index=255)
    epoch_losses = []
    with segfeed.Loader(label_scenes, batch_size=4, size=64, layout="nchw", mask_mode="labels",
                        num_classes=CLASSES, seed=2, threads=2) as loader:
        data = torch.utils.data.DataLoader(segfeed.torch.Dataset(loader), batch_size=None)
        for _ in range(6):
            losses = []
            for images, masks in data:
                optimizer.zero_grad()
                # N x 1 x H x W targets as they come; the loss wants N x H x W.
                loss = criterion(model(images), masks[:, 0])
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            epoch_losses.append(sum(losses) / len(losses))
    assert epoch_losses[-1] < 0.8 * epoch_losses[0], epoch_losses


def test_label_options_are_checked_with_the_tables_words(label_scenes):
    with pytest.raises(ValueError, match=r"num_classes must be in \[1, 255\] with mask_mode='labels' \(got 0\)"):
        segfeed.Loader(label_scenes, mask_mode="labels")
    with pytest.raises(ValueError, match=r"ignore_index must not be a class id"):
        segfeed.Loader(label_scenes, mask_mode="labels", num_classes=5, ignore_index=3)
    with pytest.raises(ValueError, match=r"num_classes applies to label maps"):
        segfeed.Loader(label_scenes, num_classes=5)
    with pytest.raises(ValueError, match=r"label_map must map to class ids"):
        segfeed.Loader(label_scenes, mask_mode="labels", num_classes=5, label_map={7: 9})
    with segfeed.Loader(label_scenes, mask_mode="labels", num_classes=5, label_map={0: 0, 1: 1, 255: 255},
                        mask_colors=None, batch_size=2, size=32) as loader:
        assert loader.options["label_map"] == {0: 0, 1: 1, 255: 255}
    with pytest.raises(ValueError, match=r"mask_ignore_value must not be a class id"):
        segfeed.Loader(label_scenes, mask_mode="labels", num_classes=5, mask_ignore_value=4)


def test_a_label_out_of_range_names_the_file_or_is_replaced(label_scenes):
    # Classes 3 and 4 exist in the label_scenes: with num_classes=3 they are out of range.
    with segfeed.Loader(label_scenes, mask_mode="labels", num_classes=3, batch_size=4, size=32, shuffle=False) as loader:
        with pytest.raises(segfeed.FileError) as caught:
            for _ in loader.epoch(0):
                pass
        assert caught.value.kind == "label_out_of_range"
        assert "_mask.png" in caught.value.path


def test_under_skip_a_label_out_of_range_is_replaced_and_listed(label_scenes):
    # Masks with class 4 are bad for num_classes=4; the others fill their slots.
    with segfeed.Loader(label_scenes, mask_mode="labels", num_classes=4, on_bad_file="skip", batch_size=4, size=32,
                        seed=5, threads=2) as loader:
        for batch in loader.epoch(0):
            masks = torch.from_dlpack(batch.masks)
            assert set(masks.unique().tolist()) <= {0, 1, 2, 3, 255}
        stats = loader.stats()
    assert stats["samples_replaced"] > 0
    kinds = {entry["kind"] for entry in stats["skipped_files"]}
    assert kinds == {"label_out_of_range"}, stats["skipped_files"]
