"""Bad files and bad options: FileError after the batches before it, skip lists it,
ConfigError with the C++ text."""

import dataclasses
import re
import subprocess

import pytest
import segfeed

OPTIONS = dict(batch_size=2, size=(32, 48), threads=2, shuffle=False)


def break_image(data, index):
    """Truncates the index-th image of the sorted listing; returns its path."""
    image = sorted((data / "train").iterdir())[index]
    image.write_bytes(image.read_bytes()[:300])
    return image


def test_a_bad_file_under_fail_raises_file_error_after_the_batches_before_it(demo_copy):
    bad = break_image(demo_copy, 5)  # sample 5: batch 2 with shuffle off
    loader = segfeed.Loader(demo_copy, **OPTIONS)
    indices = []
    with pytest.raises(segfeed.FileError) as raised:
        for batch in loader:
            indices.append(batch.index)
            batch.release()
    assert indices == [0, 1]
    error = raised.value
    assert error.path == str(bad) and error.kind == "corrupt_image" and error.detail
    assert str(error) == f"{error.path}: {error.detail} [{error.kind}]"
    assert loader.closed
    with pytest.raises(segfeed.Error, match="the loader is closed: it stopped at .*corrupt_image"):
        loader.epoch(1)
    assert loader.stats()["batches_delivered"] == 2


def test_a_bad_file_under_skip_is_listed_and_batches_stay_full(demo_copy):
    bad = break_image(demo_copy, 5)
    with segfeed.Loader(demo_copy, on_bad_file="skip", **OPTIONS) as loader:
        sizes = [b.size for b in loader]
        stats = loader.stats()
    assert sizes == [2] * 5
    assert [(f["path"], f["kind"]) for f in stats["skipped_files"]] == [(str(bad), "corrupt_image")]
    assert (stats["samples_loaded"], stats["samples_skipped"], stats["samples_replaced"]) == (9, 1, 1)


def test_images_without_masks(demo_copy):
    mask = sorted((demo_copy / "train_masks").iterdir())[0]
    mask.unlink()
    with pytest.raises(segfeed.FileError) as raised:
        segfeed.Loader(demo_copy, **OPTIONS)
    assert raised.value.kind == "missing_mask" and "on_bad_file = skip" in raised.value.detail
    with segfeed.Loader(demo_copy, on_bad_file="skip", **OPTIONS) as loader:
        assert loader.samples_per_epoch == 9
        assert [f["kind"] for f in loader.stats()["unpaired_files"]] == ["missing_mask"]


def test_a_missing_folder_is_a_file_error(tmp_path):
    with pytest.raises(segfeed.FileError) as raised:
        segfeed.Loader(images=tmp_path / "nope", masks=tmp_path)
    assert raised.value.kind == "io_error" and "nope" in raised.value.path


@pytest.mark.parametrize("option,flags,cli_text", [
    (dict(batch_size=0), ["--batch", "0"], "--batch must be >= 1 (got 0)"),
    (dict(prefetch_batches=0), ["--prefetch", "0"], "--prefetch must be >= 1 (got 0)"),
    (dict(threads=-1), ["--threads", "-1"], "--threads must be in [0, 1024], 0 meaning one per core (got -1)"),
    (dict(validation_fraction=1.5), ["--val-fraction", "1.5"], "--val-fraction must be in [0, 1] (got 1.5)"),
    (dict(size=(0, 48)), ["--size", "48x0"], "--size's height must be in [1, 16384] (got 0)"),
    (dict(augment=segfeed.Augment(scale_range=(0, 1))), ["--scale", "0,1"],
     "--scale's min must be in [0.05, 20] (got 0)"),
    (dict(augment=segfeed.Augment(crop="center", crop_max_class_ratio=0.5), mask_mode="labels", num_classes=3),
     ["--crop", "center", "--crop-max-class-ratio", "0.5", "--mask-mode", "labels", "--num-classes", "3"],
     "--crop-max-class-ratio applies to random windows: set --crop random, or leave it at 1 (got 0.5 with --crop "
     "center)"),
    (dict(rank=2, world_size=2), ["--shard", "2/2"], "--shard: rank must be in [0, world_size) (got rank 2, world_size 2)"),
])
def test_config_errors_say_the_same_in_each_front_ends_words(demo, cli, option, flags, cli_text):
    """The same rule, each front end naming the options as its user writes them: the keyword in
    Python (scale_range), the flag on the command line (--scale)."""
    with pytest.raises(segfeed.ConfigError) as raised:
        segfeed.Loader(demo, **{**OPTIONS, **option})
    assert isinstance(raised.value, ValueError)
    usage = subprocess.run([str(cli), "plan", "--source-size", "96x64", *flags], capture_output=True, text=True)
    assert usage.returncode == 2
    assert usage.stderr.splitlines()[0] == "segfeed plan: " + cli_text
    # Python's text with each keyword (and name='value') in the flag's spelling is the CLI's.
    words = {"batch_size": "--batch", "prefetch_batches": "--prefetch", "threads": "--threads",
             "validation_fraction": "--val-fraction", "size": "--size", "scale_range": "--scale",
             "crop_max_class_ratio": "--crop-max-class-ratio", "crop": "--crop", "mask_mode": "--mask-mode"}
    python_text = str(raised.value)
    assert not python_text.startswith("-")
    python_text = re.sub(r"(?<![-\w])([a-z_]+)\b(?:='(\w+)')?",
                         lambda m: (words[m.group(1)] + (" " + m.group(2) if m.group(2) else ""))
                         if m.group(1) in words else m.group(0), python_text)
    if flags[0] == "--shard":
        python_text = "--shard: " + python_text
    assert python_text == cli_text


@pytest.mark.parametrize("option,text", [
    (dict(layout="nhcw"), "layout must be one of nhwc, nchw (got 'nhcw')"),
    (dict(image_dtype="int8"), "image_dtype must be one of uint8, float16, float32 (got 'int8')"),
    (dict(on_bad_file="ignore"), "on_bad_file must be one of fail, skip (got 'ignore')"),
    (dict(image_dtype="uint8", mean=(0.5, 0.5, 0.5), std=(0.2, 0.2, 0.2)), "normalize must be false for image_dtype uint8"),
    (dict(mean=(0.5, 0.5, 0.5)), "mean and std go together"),
    (dict(augment=segfeed.Augment(rotation_fraction=0.7)), "rotation_fraction must be in [0, 0.5] (got 0.7)"),
    (dict(augment=segfeed.Augment(hue=(0.3, 0.1))), "hue must be an interval with min <= max"),
    # An option that does nothing in the mode given is refused, as num_classes is in binary mode.
    (dict(augment=segfeed.Augment.mmseg_like()), "crop_max_class_ratio applies to label maps: set "
     "mask_mode='labels', or leave it at 1 (got 0.75 with mask_mode='binary')"),
    (dict(mask_mode="labels", num_classes=3, augment=segfeed.Augment(crop="center", crop_max_class_ratio=0.5)),
     "crop_max_class_ratio applies to random windows"),
    (dict(decode=segfeed.Decode(mask_threshold=100)), "mask_threshold applies to mask_foreground='luminance'"),
    (dict(mask_mode="labels", num_classes=3, decode=segfeed.Decode(mask_threshold=100)),
     "mask_threshold applies to binary masks"),
    (dict(mask_mode="labels", num_classes=3, decode=segfeed.Decode(mask_foreground="luminance")),
     "mask_foreground applies to binary masks: label maps keep their class ids (got 'luminance' with "
     "mask_mode='labels')"),
    (dict(ignore_index=-100), "ignore_index applies to label maps: set mask_mode='labels' (got -100 with "
     "mask_mode='binary')"),
    (dict(seed=-1), "seed is out of range (got -1)"),
    (dict(batch_size=2**40), "batch_size is out of range"),
])
def test_config_errors(demo, option, text):
    with pytest.raises(segfeed.ConfigError) as raised:
        segfeed.Loader(demo, **{**OPTIONS, **option})
    assert text in str(raised.value)


def test_the_same_options_are_accepted_where_they_do_something(demo):
    for option in (dict(mask_mode="labels", num_classes=5, ignore_index=-100, augment=segfeed.Augment.mmseg_like()),
                   dict(decode=segfeed.Decode(mask_foreground="luminance", mask_threshold=100)),
                   dict(augment=dataclasses.replace(segfeed.Augment.mmseg_like(), crop_max_class_ratio=1.0)),
                   dict(augment=segfeed.Augment.mmseg_like().for_validation())):
        segfeed.Loader(demo, **{**OPTIONS, **option}).close()


def test_first_batch_out_of_range(demo):
    with segfeed.Loader(demo, **OPTIONS) as loader:
        with pytest.raises(segfeed.ConfigError, match=r"first_batch must be in \[0, 5\] \(got 6\)"):
            loader.epoch(0, 6)
        assert len(loader.epoch(0, 5)) == 0


def test_wrong_types_are_type_errors(demo):
    for option in (dict(batch_size=2.0), dict(shuffle=1), dict(layout=1), dict(augment="none")):
        with pytest.raises(TypeError):
            segfeed.Loader(demo, **{**OPTIONS, **option})


def test_no_dataset_given():
    with pytest.raises(segfeed.ConfigError, match="no dataset"):
        segfeed.Loader()
