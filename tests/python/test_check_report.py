"""`segfeed check --report`: the HTML report, loaded from disk by headless Chromium.

Chromium reads each report with the network blocked (every host name resolves
to nothing, every request goes to a closed proxy port) and dumps the DOM it
built; the tests compare its counts, problem rows and class rows with the
JSON report of the same run. Chromium is Debian's `chromium`, which
scripts/dev.sh installs with the Python test packages: without it these
tests skip, and fail under CI=true.
"""

from __future__ import annotations

import base64
import html.parser
import io
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import tempfile

import pytest
from PIL import Image

from conftest import REPO, make_demo

# Where the screenshot of a report with problems is written, for a person to look at.
SCREENSHOT_DIR = REPO / "build" / "check-report"


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        message = "chromium is not installed (scripts/dev.sh installs Debian's chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


def run_chromium(report: pathlib.Path, *args: str) -> str:
    """Loads `report` offline in headless Chromium with `args` (--dump-dom, --screenshot=...)."""
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [chromium(), "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
             f"--user-data-dir={profile}", '--host-resolver-rules=MAP * ~NOTFOUND',
             "--proxy-server=127.0.0.1:9", "--disable-background-networking",
             "--disable-component-update", *args, report.resolve().as_uri()],
            capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout.decode("utf-8")


class ReportDom(html.parser.HTMLParser):
    """What the tests read from the DOM Chromium built: counts, rows, images, scripts."""

    def __init__(self, dom: str):
        super().__init__(convert_charrefs=True)
        self.counts: dict[str, int] = {}
        self.by_kind: dict[str, int] = {}
        self.problem_rows: list[list[str]] = []
        self.class_rows: list[list[str]] = []
        self.images: list[dict[str, str]] = []
        self.problem_images: list[str] = []  # the src of each thumbnail in a problem row
        self.tags: set[str] = set()
        self._cell: tuple[str, str] | None = None  # (what, key) of the cell being read
        self._row: list[str] | None = None
        self._row_kind: str | None = None
        self._text = ""
        self.feed(dom)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "tr" and "problem" in (a.get("class") or "").split():
            self._row, self._row_kind = [], "problem"
        elif tag == "tr" and a.get("class") == "class-row":
            self._row, self._row_kind = [], "class"
        elif tag in ("td", "th") and self._row is not None:
            self._text = ""
        elif tag == "td" and "data-count" in a:
            self._cell, self._text = ("count", a["data-count"]), ""
        elif tag == "td" and "data-kind" in a:
            self._cell, self._text = ("kind", a["data-kind"]), ""
        elif tag == "img":
            self.images.append(a)
            if self._row_kind == "problem":
                self.problem_images.append(a["src"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._text)
        elif tag == "td" and self._cell is not None:
            what, key = self._cell
            (self.counts if what == "count" else self.by_kind)[key] = int(self._text)
            self._cell = None
        elif tag == "tr" and self._row is not None:
            (self.problem_rows if self._row_kind == "problem" else self.class_rows).append(self._row)
            self._row, self._row_kind = None, None

    def handle_data(self, data):
        self._text += data


def printable(text: str, hex_bytes: str | None) -> str:
    """A name as the report shows it (output::PrintableText): bytes that are not UTF-8 as \\xNN."""
    raw = bytes.fromhex(hex_bytes) if hex_bytes else text.encode()
    return raw.decode("utf-8", errors="backslashreplace")


def check(cli, tmp_path: pathlib.Path, *dataset: str, name: str = "report") -> tuple[pathlib.Path, dict, ReportDom]:
    """Runs check with --report and --json; returns the report, the JSON and the DOM Chromium built."""
    report, json_path = tmp_path / f"{name}.html", tmp_path / f"{name}.json"
    done = subprocess.run([str(cli), "check", *dataset, "--threads", "2", "--report", str(report),
                           "--json", str(json_path)], capture_output=True)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")
    document = json.loads(json_path.read_text())
    dom = ReportDom(run_chromium(report, "--dump-dom"))
    assert_self_contained(report.read_bytes(), dom)
    assert_matches_json(document, dom)
    return report, document, dom


def assert_self_contained(raw: bytes, dom: ReportDom) -> None:
    """No script, no external reference: every picture a data URI, with alt text."""
    text = raw.decode("utf-8")  # the page is valid UTF-8 whatever the names hold
    assert "<script" not in text.lower() and "script" not in dom.tags
    outside_pictures = re.sub(r'data:image/jpeg;base64,[A-Za-z0-9+/=]*"', '"', text)
    for reference in ("http:", "https:", "://", "url(", "@import", "href=", "xmlns"):
        assert reference not in outside_pictures, reference
    for image in dom.images:
        assert image["src"].startswith("data:image/jpeg;base64,"), image["src"][:40]
        assert image.get("alt")
        assert int(image["width"]) <= 160 and int(image["height"]) <= 160


def assert_matches_json(document: dict, dom: ReportDom) -> None:
    summary = document["summary"]
    for key in ("pairs", "unpaired_images", "orphan_masks", "ignored_files", "images_checked",
                "masks_checked", "problem_count"):
        assert dom.counts[key] == summary[key], key
    assert dom.by_kind == {kind: n for kind, n in summary["problems_by_kind"].items() if n}
    expected_rows = [[printable(p["path"], p.get("path_bytes_hex")), p["kind"],
                      printable(p["detail"], p.get("detail_bytes_hex"))] for p in document["problems"]]
    assert [row[1:] for row in dom.problem_rows] == expected_rows
    expected_classes = [[str(c["id"]), c["name"], str(c["pixels"]), str(c["masks"])]
                        for c in summary["classes"]]
    assert [row[:4] for row in dom.class_rows] == expected_classes


# --- datasets -----------------------------------------------------------------------------------

def jpeg(path: pathlib.Path, width: int, height: int, colour=(90, 140, 200)) -> None:
    Image.new("RGB", (width, height), colour).save(path, quality=90)


def planted(cli, root: pathlib.Path) -> pathlib.Path:
    """make-demo's Carvana layout with one file of each problem kind a folder dataset can have."""
    make_demo(cli, root, 16, 96, 64, seed=5)
    images = sorted((root / "train").iterdir())
    masks = sorted((root / "train_masks").iterdir())
    masks[0].unlink()                                                    # missing_mask
    shutil.copy(masks[1], root / "train_masks" / "zz_orphan_mask.gif")   # orphan_mask
    images[1].write_bytes(images[1].read_bytes()[: len(images[1].read_bytes()) * 7 // 10])  # corrupt_image
    images[2].write_bytes(os.urandom(3000))                              # unsupported_format
    images[3].write_bytes(b"")                                           # empty_file
    jpeg(images[4], 128, 64)                                             # size_mismatch
    three = Image.new("P", (96, 64), 0)                                  # non_binary_mask
    three.putpalette([0, 0, 0, 255, 255, 255, 128, 128, 128])
    three.paste(1, (10, 10, 40, 40)); three.paste(2, (50, 10, 80, 40))
    three.save(masks[5])
    masks[6].write_bytes(masks[6].read_bytes()[: len(masks[6].read_bytes()) // 2])  # corrupt_mask
    data = bytearray(images[7].read_bytes())                             # too_large: SOF claims 60000x60000
    sof = data.index(b"\xff\xc0")
    data[sof + 5: sof + 9] = struct.pack(">HH", 60000, 60000)
    images[7].write_bytes(bytes(data))
    images[8].unlink(); images[8].symlink_to(root / "train" / "does-not-exist.jpg")  # io_error
    inverted = Image.new("P", (96, 64), 0)                               # suspicious_mask: inverted palette
    inverted.putpalette([255, 255, 255, 0, 0, 0])
    inverted.paste(1, (20, 20, 60, 50))
    inverted.save(masks[9])
    shutil.copy(images[10], root / "train" / (images[10].stem + ".JPG"))  # duplicate_key
    shutil.copy(images[11], images[12])                                   # a duplicate group
    return root


# --- tests --------------------------------------------------------------------------------------

def test_report_of_every_problem_kind_agrees_with_json_and_is_screenshot(cli, tmp_path):
    root = planted(cli, tmp_path / "planted")
    report, document, dom = check(cli, tmp_path, "--data", str(root))
    kinds = {p["kind"] for p in document["problems"]}
    assert kinds >= {"missing_mask", "orphan_mask", "corrupt_image", "unsupported_format", "empty_file",
                     "size_mismatch", "non_binary_mask", "corrupt_mask", "too_large", "io_error",
                     "suspicious_mask", "duplicate_key"}, kinds
    # Thumbnails where a pair decodes: the size mismatch shows two panels (both sizes).
    assert 0 < len(dom.problem_images) <= 200
    mismatch = [row for row in dom.problem_rows if row[2] == "size_mismatch"]
    assert mismatch and "photo 128x64" in report.read_text() and "mask 96x64" in report.read_text()
    assert len(document["summary"]["duplicates"]) == 2  # the copied photo; the orphan, a copy of a mask
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    shot = SCREENSHOT_DIR / "problems.png"
    shot.unlink(missing_ok=True)
    run_chromium(report, f"--screenshot={shot}", "--window-size=1200,1600", "--hide-scrollbars")
    assert shot.stat().st_size > 10_000


def test_report_of_a_clean_dataset(cli, tmp_path):
    root = make_demo(cli, tmp_path / "clean", 10, 96, 64)
    report, document, dom = check(cli, tmp_path, "--data", str(root))
    assert document["problems"] == [] and dom.problem_rows == []
    assert "clean" in report.read_text()
    # Ten pairs, all shown as samples (a photo with its overlay each).
    assert len(dom.images) == 10


def test_report_of_labels_with_preset_class_names_and_out_of_range_values(cli, tmp_path):
    root = tmp_path / "voc"
    subprocess.run([str(cli), "make-demo", str(root), "--dataset", "voc", "--count", "12", "--width", "64",
                    "--height", "48"], check=True, capture_output=True)
    mask = sorted((root / "SegmentationClass").iterdir())[0]
    labels = Image.open(mask)
    labels.paste(50, (0, 0, 16, 16))  # neither a VOC class (0-20) nor ignore (255)
    labels.save(mask)
    report, document, dom = check(cli, tmp_path, "--data", str(root), "--dataset", "voc")
    assert [p["kind"] for p in document["problems"]] == ["label_out_of_range"]
    assert len(dom.class_rows) == 21 and dom.class_rows[15][1] == "person"
    text = report.read_text()
    assert "value out of range" in text  # the legend: the broken mask is among the 9 samples
    # The offending 16x16 block is painted red in the problem's thumbnail.
    assert len(dom.problem_images) == 1
    picture = Image.open(io.BytesIO(base64.b64decode(dom.problem_images[0].split(",", 1)[1]))).convert("RGB")
    red = sum(1 for r, g, b in picture.getdata() if r > 200 and g < 70 and b < 70)
    assert red > 0.5 * (16 * picture.width / 64) ** 2, red
    assert "aeroplane" in text  # class names in the charts and the legend


def test_report_of_binary_masks_and_of_no_pairs(cli, tmp_path):
    root = make_demo(cli, tmp_path / "binary", 4, 64, 48)
    check(cli, tmp_path, "--data", str(root), name="binary")
    empty = tmp_path / "empty"
    (empty / "train").mkdir(parents=True)
    (empty / "train_masks").mkdir()
    report, document, dom = check(cli, tmp_path, "--data", str(empty), name="empty")
    assert document["pairs"] == 0 and dom.counts["pairs"] == 0
    assert "NOT CLEAN" in report.read_text() and "no image/mask pair" in report.read_text()


def test_hostile_names_are_escaped_never_interpreted(cli, tmp_path):
    root = make_demo(cli, tmp_path / "hostile", 3, 64, 48)
    train = os.fsencode(root / "train")
    hostile = b"<script>alert(1)<\\script> & \xff<img src=x onerror=alert(2)>"
    hostile = hostile.replace(b"\\", b"")  # a path cannot hold '/'; keep the rest
    os.link(os.fsencode(root / "train") + b"/" + sorted(os.listdir(train))[0], train + b"/" + hostile + b".jpg")
    report, document, dom = check(cli, tmp_path, "--data", str(root))
    raw = report.read_bytes()
    assert b"\xff" not in raw and b"<img src=x" not in raw and b"<script>" not in raw
    assert "script" not in dom.tags
    row = next(r for r in dom.problem_rows if r[2] == "missing_mask")
    assert row[1].endswith("/<script>alert(1)<script> & \\xff<img src=x onerror=alert(2)>.jpg")
    # Every <img> in the DOM is one the report drew: none came from a name.
    assert all(image["src"].startswith("data:") for image in dom.images)


def test_report_of_a_list_file_with_its_own_problem_kinds(cli, tmp_path):
    """The two kinds only a two-column list can have: a line whose photo is missing
    (missing_image) and one that leads outside the list's root (outside_root)."""
    root = make_demo(cli, tmp_path / "listed", 4, 64, 48)
    photos = sorted((root / "train").iterdir())
    masks = sorted((root / "train_masks").iterdir())
    outside = tmp_path / "outside.jpg"
    outside.write_bytes(photos[0].read_bytes())
    lines = [f"train/{p.name} train_masks/{m.name}" for p, m in zip(photos[:2], masks[:2])]
    lines.append(f"train/not-there.jpg train_masks/{masks[2].name}")
    lines.append(f"../outside.jpg train_masks/{masks[3].name}")
    (root / "pairs.txt").write_text("\n".join(lines) + "\n")
    _, document, dom = check(cli, tmp_path, "--list", str(root / "pairs.txt"), "--list-root", str(root),
                             name="listed")
    assert {"missing_image", "outside_root"} <= set(dom.by_kind), dom.by_kind
    assert document["pairs"] == 2
