"""The presets of CamVid (both forms), COCO-Stuff, Mapillary Vistas, BDD100K and LoveDA on trees
that Pillow writes in each dataset's own layout and file forms: exact pair counts, each file
value mapped by the published table, the unlabelled value ignored, the classes named."""

from pathlib import Path

import numpy as np
import pytest
import segfeed
from PIL import Image

SIZE = (16, 24)  # (height, width) of every file and of the batches
# The CamVid release's label_colors.txt, as the dataset tables' tests keep it.
LABEL_COLORS = Path(__file__).parent.parent / "dataset" / "published" / "camvid_label_colors.txt"
# Its first colours, as the masks below use them.
CAMVID_COLOURS = [((64, 128, 64), "Animal"), ((192, 0, 128), "Archway"), ((0, 128, 192), "Bicyclist")]


def photo(path, seed):
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rng.integers(0, 256, SIZE + (3,), dtype=np.uint8)).save(path)


def split_mask(value, unlabelled):
    """The top half one file value, the bottom half the dataset's unlabelled value."""
    mask = np.full(SIZE, value, dtype=np.uint8)
    mask[SIZE[0] // 2:] = unlabelled
    return mask


def grey(path, value, unlabelled):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(split_mask(value, unlabelled), mode="L").save(path)


def palette(path, value, unlabelled):
    path.parent.mkdir(parents=True, exist_ok=True)
    image = Image.fromarray(split_mask(value, unlabelled), mode="P")
    image.putpalette([(i * 37) % 256 for i in range(768)])
    image.save(path)


# Each layout: (preset, split, file values written -> classes expected, unlabelled value).
def write_camvid(root):
    for split, values in (("train", (0, 4, 10)), ("val", (7,))):
        for i, value in enumerate(values):
            photo(root / split / f"0001TP_{i:06d}.png", i)
            grey(root / f"{split}annot" / f"0001TP_{i:06d}.png", value, 11)
    return [("camvid", "train", {0: 0, 4: 4, 10: 10}), ("camvid", "val", {7: 7})]


def write_camvid32(root):
    root.mkdir(parents=True, exist_ok=True)
    (root / "label_colors.txt").write_bytes(LABEL_COLORS.read_bytes())
    for i, (colour, _) in enumerate(CAMVID_COLOURS):
        photo(root / "701_StillsRaw_full" / f"0001TP_{i:06d}.png", i)
        mask = np.zeros(SIZE + (3,), dtype=np.uint8)
        mask[:] = colour
        mask[SIZE[0] // 2:] = (0, 0, 0)  # Void
        (root / "LabeledApproved_full").mkdir(parents=True, exist_ok=True)
        Image.fromarray(mask).save(root / "LabeledApproved_full" / f"0001TP_{i:06d}_L.png")
    # Animal, Archway, Bicyclist are the file's first lines, classes 0, 1, 2.
    return [("camvid32", None, {0: 0, 1: 1, 2: 2})]


def write_coco_stuff(root):
    # Category ids 1 (person), 13 (stop sign, after the unused 12), 92 (banner, the first
    # stuff) and 182 (wood) are file values 0, 12, 91, 181 and classes 0, 11, 80, 170.
    for i, value in enumerate((0, 12, 91, 181)):
        photo(root / "images" / "train2017" / f"{i:012d}.jpg", i)
        grey(root / "annotations" / "train2017" / f"{i:012d}.png", value, 255)
    return [("coco_stuff", "train", {0: 0, 12: 11, 91: 80, 181: 170})]


def write_mapillary(root):
    for i, (v12, v20) in enumerate(((13, 21), (55, 108), (64, 120))):
        photo(root / "training" / "images" / f"key{i}.jpg", i)
        palette(root / "training" / "v1.2" / "labels" / f"key{i}.png", v12, 65)
        palette(root / "training" / "v2.0" / "labels" / f"key{i}.png", v20, 123)
    return [("mapillary", "train", {13: 13, 55: 55, 64: 64}),
            ("mapillary_v2", "train", {21: 21, 108: 108, 120: 120})]


def write_bdd100k(root):
    for i, value in enumerate((0, 13, 18)):
        photo(root / "images" / "10k" / "val" / f"{i:08x}-00000000.jpg", i)
        grey(root / "labels" / "sem_seg" / "masks" / "val" / f"{i:08x}-00000000.png", value, 255)
    return [("bdd100k", "val", {0: 0, 13: 13, 18: 18})]


def write_loveda(root):
    for domain, numbers, values in (("Rural", (0, 1), (1, 7)), ("Urban", (2,), (4,))):
        for number, value in zip(numbers, values):
            photo(root / "Train" / domain / "images_png" / f"{number}.png", number)
            grey(root / "Train" / domain / "masks_png" / f"{number}.png", value, 0)
    return [("loveda", "train", {1: 0, 7: 6, 4: 3}), ("loveda", "train/urban", {4: 3}),
            ("loveda", "train/rural", {1: 0, 7: 6})]


LAYOUTS = {"camvid": write_camvid, "camvid32": write_camvid32, "coco_stuff": write_coco_stuff,
           "mapillary": write_mapillary, "bdd100k": write_bdd100k, "loveda": write_loveda}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_pillow_tree_in_each_layout_loads_mapped_by_the_published_table(tmp_path, layout):
    for preset, split, mapping in LAYOUTS[layout](tmp_path):
        keywords = {} if split is None else {"split": split}
        with segfeed.Loader(tmp_path, dataset=preset, batch_size=1, size=SIZE, shuffle=False,
                            augment=segfeed.Augment.none(), threads=2, **keywords) as loader:
            assert len(loader.pairs()) == len(mapping), (preset, split)
            names = loader.class_names
            assert len(names) == loader.options["num_classes"] > max(mapping.values())
            expected = sorted(mapping.values())
            seen = []
            for batch in loader:
                with batch:
                    masks = np.asarray(batch.masks)
                    values = set(np.unique(masks).tolist())
                    # One class in the top half, the unlabelled value ignored below it.
                    assert len(values) == 2 and 255 in values, (preset, values)
                    seen += sorted(values - {255})
            assert sorted(seen) == expected, (preset, split, seen)


def test_class_names_are_the_published_ones_and_a_users_own(tmp_path):
    write_coco_stuff(tmp_path)
    with segfeed.Loader(tmp_path, dataset="coco_stuff", batch_size=1, size=SIZE) as loader:
        names = loader.class_names
        assert (names[0], names[11], names[80], names[170]) == ("person", "stop sign", "banner",
                                                                 "wood")
    write_camvid32(tmp_path / "camvid32")
    with segfeed.Loader(tmp_path / "camvid32", dataset="camvid32", batch_size=1,
                        size=SIZE) as loader:
        assert loader.class_names[:3] == ["Animal", "Archway", "Bicyclist"]
        assert loader.options["mask_colors"][(0, 0, 0)] == "ignore"
    # A user's own dataset names its classes, as a list or a file.
    (tmp_path / "names.txt").write_text("background\nperson\n")
    own = dict(images=tmp_path / "images" / "train2017",
               masks=tmp_path / "annotations" / "train2017", mask_suffix="", mask_mode="labels",
               num_classes=2, label_map={0: 1}, batch_size=1, size=SIZE)
    with segfeed.Loader(class_names=["bg", "person"], **own) as loader:
        assert loader.class_names == ["bg", "person"]
    with segfeed.Loader(class_names=str(tmp_path / "names.txt"), **own) as loader:
        assert loader.class_names == ["background", "person"]
    with pytest.raises(segfeed.ConfigError, match="class_names must name the num_classes = 2"):
        segfeed.Loader(class_names=["a", "b", "c"], **own)
