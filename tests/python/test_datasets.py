"""Datasets as they are laid out: the presets on make-demo's VOC, Cityscapes and ADE20K trees,
the folders rule with suffixes, lists of keys and of paths, and what a wrong layout says."""

import hashlib
import shutil

import numpy as np
import pytest
import segfeed

OPTIONS = dict(batch_size=3, size=(32, 48), shuffle=False)
# Cityscapes' training ids of the ids make-demo draws, and ADE20K's classes minus one.
PRESETS = {"voc": 21, "cityscapes": 19, "ade20k": 150}


def label_values(loader, dtype=np.int64):
    """Every value the loader's label batches hold, checking their dtype."""
    values = set()
    for batch in loader:
        with batch:
            masks = np.asarray(batch.masks)
            assert masks.dtype == dtype
            values |= set(np.unique(masks).tolist())
    return values


def stream(loader):
    digest = hashlib.sha256()
    for batch in loader:
        with batch:
            digest.update(np.asarray(batch.images).tobytes())
            digest.update(np.asarray(batch.masks).tobytes())
    return digest.hexdigest()


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_streams_its_label_maps(layouts, name):
    with segfeed.Loader(layouts[name], dataset=name, split="train", threads=2, **OPTIONS) as loader:
        assert len(loader.pairs()) == 9
        assert loader.options["mask_mode"] == "labels"
        assert loader.options["num_classes"] == PRESETS[name]
        assert loader.options["ignore_index"] == 255
        assert loader.options["mask_ignore_value"] == {"voc": 255, "cityscapes": 255, "ade20k": 0}[name]
        # The preset's map as the dict a user would give.
        label_map = loader.options["label_map"]
        assert label_map is None if name == "voc" else isinstance(label_map, dict)
        if name == "cityscapes":
            assert len(label_map) == 19 and label_map[7] == 0 and label_map[33] == 18
        assert loader.dataset_rule.startswith(name)
        values = label_values(loader)
        assert values <= set(range(PRESETS[name])) | {255}
        assert len(values - {255}) >= 2, values
    with segfeed.Loader(layouts[name], dataset=name, split="val", **OPTIONS) as val:
        assert len(val.pairs()) == 3


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_preset_streams_the_same_bytes_on_one_and_two_threads(layouts, name):
    digests = set()
    for threads in (1, 2, 2):
        with segfeed.Loader(layouts[name], dataset=name, seed=5, threads=threads, batch_size=2,
                            size=(24, 40)) as loader:
            digests.add(stream(loader))
    assert len(digests) == 1


def test_cityscapes_pairs_by_city_and_maps_its_ids(layouts):
    root = layouts["cityscapes"]
    with segfeed.Loader(root, dataset="cityscapes", **OPTIONS) as loader:
        keys = [key for key, _, _ in loader.pairs()]
        assert keys == sorted(keys) and all(key.split("/")[0] in ("aachen", "bochum") for key in keys)
        key, image, mask = loader.pairs()[0]
        assert image == str(root / "leftImg8bit" / "train" / (key + "_leftImg8bit.png"))
        assert mask == str(root / "gtFine" / "train" / (key + "_gtFine_labelIds.png"))
    # The ids as they are: 7 (road) and 26 (car) are there, 1 (ego vehicle) too.
    with segfeed.Loader(root, dataset="cityscapes", label_map=None, num_classes=34, **OPTIONS) as raw:
        assert {7, 26, 1} <= label_values(raw)


def test_voc_keeps_the_order_of_its_list(layouts, tmp_path):
    root = pathlib_copy(layouts["voc"], tmp_path)
    listed = (root / "ImageSets/Segmentation/train.txt").read_text().split()
    with segfeed.Loader(root, dataset="voc", **OPTIONS) as loader:
        assert [key for key, _, _ in loader.pairs()] == listed
    shuffled = listed[::-1]
    (root / "ImageSets/Segmentation/train.txt").write_text("\n".join(shuffled) + "\n")
    with segfeed.Loader(root, dataset="voc", **OPTIONS) as loader:
        assert [key for key, _, _ in loader.pairs()] == shuffled


def pathlib_copy(folder, tmp_path):
    return shutil.copytree(folder, tmp_path / folder.name)


def test_resume_refuses_a_changed_list_file(layouts, tmp_path):
    root = pathlib_copy(layouts["voc"], tmp_path)
    with segfeed.Loader(root, dataset="voc", **OPTIONS) as loader:
        iterator = iter(loader)
        next(iterator).release()
        state = loader.state_dict()
    with segfeed.Loader(root, dataset="voc", **OPTIONS) as same:
        same.load_state_dict(state)
    listed = (root / "ImageSets/Segmentation/train.txt").read_text().split()
    (root / "ImageSets/Segmentation/train.txt").write_text("\n".join(listed[1:] + listed[:1]) + "\n")
    with segfeed.Loader(root, dataset="voc", **OPTIONS) as changed:
        with pytest.raises(segfeed.ConfigError, match="the dataset changed"):
            changed.load_state_dict(state)


def test_the_folders_rule_with_suffixes_and_extensions(layouts):
    root = layouts["cityscapes"]
    with segfeed.Loader(root, images="leftImg8bit/train/aachen", masks="gtFine/train/aachen",
                        image_suffix="_leftImg8bit", mask_suffix="_gtFine_labelIds",
                        image_extensions=".png", mask_extensions=(".png",), mask_mode="labels",
                        num_classes=34, **OPTIONS) as loader:
        assert loader.dataset_rule.startswith("folders:")
        assert [key for key, _, _ in loader.pairs()] and all(
            key.startswith("aachen_") for key, _, _ in loader.pairs())
    # VOC's photos without a label map are unpaired: named, and left out under skip.
    voc = layouts["voc"]
    with pytest.raises(segfeed.FileError, match="missing_mask"):
        segfeed.Loader(images=voc / "JPEGImages", masks=voc / "SegmentationClass", mask_suffix="",
                       mask_mode="labels", num_classes=21, **OPTIONS)
    with segfeed.Loader(images=voc / "JPEGImages", masks=voc / "SegmentationClass", mask_suffix="",
                        mask_mode="labels", num_classes=21, on_bad_file="skip", **OPTIONS) as loader:
        assert len(loader.pairs()) == 12
        assert [p["kind"] for p in loader.stats()["unpaired_files"]] == ["missing_mask"] * 3


def test_a_two_column_list_under_its_root(layouts, tmp_path):
    root = layouts["ade20k"]
    images = sorted((root / "images" / "training").iterdir())[:4]
    lines = [f"images/training/{p.name}\tannotations/training/{p.stem}.png" for p in reversed(images)]
    lines.insert(1, "# a comment")
    list_file = tmp_path / "pairs.tsv"
    list_file.write_text("\n".join(lines) + "\n")
    with segfeed.Loader(list_file=list_file, root=root, mask_mode="labels", num_classes=151,
                        **OPTIONS) as loader:
        assert [image for _, image, _ in loader.pairs()] == [str(p) for p in reversed(images)]
        assert loader.dataset_rule.startswith("list:")
        assert sum(len(batch.sample_ids) for batch in loader) == 4


def test_a_list_may_not_name_files_outside_its_root_unless_allowed(layouts, tmp_path):
    # The list's root holds one pair and a link to a folder beside it that holds the other image.
    images = sorted((layouts["ade20k"] / "images" / "training").iterdir())[:2]
    root, outside = tmp_path / "data", tmp_path / "outside"
    (root / "masks").mkdir(parents=True)
    (root / "images").mkdir()
    outside.mkdir()
    for image in images:
        shutil.copy(layouts["ade20k"] / "annotations" / "training" / f"{image.stem}.png", root / "masks")
    shutil.copy(images[0], outside)
    shutil.copy(images[1], root / "images")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    list_file = root / "pairs.tsv"
    list_file.write_text(f"linked/{images[0].name}\tmasks/{images[0].stem}.png\n"
                         f"images/{images[1].name}\tmasks/{images[1].stem}.png\n")
    keywords = dict(list_file=list_file, mask_mode="labels", num_classes=151, **OPTIONS)
    with pytest.raises(segfeed.FileError, match=r"listed on line 1 of .*, goes through linked, a symlink to") as error:
        segfeed.Loader(**keywords)
    assert error.value.kind == "outside_root"
    assert "allow_outside_root=True" in error.value.detail
    with segfeed.Loader(on_bad_file="skip", **keywords) as loader:
        assert [image for _, image, _ in loader.pairs()] == [str(root / "images" / images[1].name)]
        assert [p["kind"] for p in loader.stats()["unpaired_files"]] == ["outside_root"]
    with segfeed.Loader(allow_outside_root=True, **keywords) as loader:
        assert len(loader.pairs()) == 2
        assert sum(len(batch.sample_ids) for batch in loader) == 2
    with pytest.raises(TypeError, match="allow_outside_root must be True or False"):
        segfeed.Loader(allow_outside_root="yes", **keywords)


def test_a_wrong_layout_says_what_it_found(layouts):
    with pytest.raises(segfeed.FileError, match="this looks like the voc layout, try --dataset voc"):
        segfeed.Loader(layouts["voc"])
    with pytest.raises(segfeed.FileError, match="no split 'test'"):
        segfeed.Loader(layouts["cityscapes"], dataset="cityscapes", split="test")
    with pytest.raises(segfeed.ConfigError, match="dataset must be one of"):
        segfeed.Loader(layouts["voc"], dataset="pascal")
    with pytest.raises(TypeError, match="recursive must be True or False"):
        segfeed.Loader(layouts["voc"], images="a", masks="b", recursive="yes")
    with pytest.raises(segfeed.ConfigError, match="images does not go with dataset voc"):
        segfeed.Loader(layouts["voc"], dataset="voc", images="JPEGImages")


def test_keywords_given_win_over_the_preset(layouts):
    # PyTorch's -100 for VOC's 255 boundary, with no label_map: the preset names the files' value
    # (mask_ignore_value 255), the keyword the value written.
    with segfeed.Loader(layouts["voc"], dataset="voc", ignore_index=-100, mask_dtype="int32",
                        **OPTIONS) as loader:
        assert loader.options["ignore_index"] == -100
        assert loader.options["mask_ignore_value"] == 255
        assert loader.options["num_classes"] == 21
        values = label_values(loader, np.int32)
        assert -100 in values and values <= set(range(21)) | {-100}
    # The files' value is the user's too: another one leaves VOC's 255 out of range.
    with segfeed.Loader(layouts["voc"], dataset="voc", mask_ignore_value=254, **OPTIONS) as loader:
        with pytest.raises(segfeed.FileError, match="nor mask_ignore_value 254: 255"):
            next(iter(loader))


@pytest.mark.parametrize("name", ["cityscapes", "ade20k"])
def test_the_users_ignore_index_is_the_presets_ignore_too(layouts, name):
    # The preset's map sends nothing to 255 itself (ADE20K's 0 is left out of it), so the user's
    # ignore_index is what its ignored ids become, with no label_map of the user's own.
    with segfeed.Loader(layouts[name], dataset=name, ignore_index=-100, augment=segfeed.Augment.none(),
                        **OPTIONS) as loader:
        assert loader.options["ignore_index"] == -100
        values = label_values(loader, np.int64)
    assert -100 in values and values <= set(range(PRESETS[name])) | {-100}
