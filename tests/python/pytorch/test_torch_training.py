"""A real PyTorch training loop on segfeed batches: the loss goes down, on exactly the loader's stream."""

import pytest
import segfeed

torch = pytest.importorskip("torch")
import segfeed.torch  # noqa: E402  (needs torch)

from conftest import make_demo  # noqa: E402


@pytest.fixture(scope="module")
def cars(cli, tmp_path_factory):
    """16 pairs of 96x64: batches of 4 at 64x64."""
    return make_demo(cli, tmp_path_factory.mktemp("cars") / "data", 16, 96, 64, seed=1)


def small_segmenter():
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 1, 1))


@pytest.mark.parametrize("layout", ["nchw", "nhwc"])
def test_a_training_loop_lowers_the_loss_and_sees_the_loaders_stream(cars, layout):
    options = dict(batch_size=4, size=64, layout=layout, seed=2, threads=2)
    model = small_segmenter()
    if layout == "nhwc":
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = torch.nn.BCEWithLogitsLoss()
    epoch_losses, seen_ids = [], []
    with segfeed.Loader(cars, **options) as loader:
        data = torch.utils.data.DataLoader(segfeed.torch.Dataset(loader, info=True), batch_size=None)
        for epoch in range(6):
            losses = []
            for images, masks, info in data:
                seen_ids.append((info["epoch"], info["index"], info["sample_ids"]))
                optimizer.zero_grad()
                loss = criterion(model(images), masks)
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
            epoch_losses.append(sum(losses) / len(losses))
        assert loader.stats()["outstanding_leases"] <= 1
    with segfeed.Loader(cars, **options) as reference:
        assert seen_ids == [(b.epoch, b.index, list(b.sample_ids)) for e in range(6) for b in reference.epoch(e)]
    assert len(seen_ids) == 24
    assert epoch_losses[-1] < 0.8 * epoch_losses[0], epoch_losses
