"""The README's Python examples run as written."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README has no Python example"
    for i, block in enumerate(blocks):
        exec(compile(block, f"README.md python block {i}", "exec"), {})


def test_readme_pictures_are_small_pngs_in_the_repository():
    """Each page of ``murlan serve`` has its picture (taken by the browser tests), under 300 KB."""
    text = README.read_text()
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    for page in ("play", "replay", "compare"):
        assert f"docs/serve-{page}.png" in pictures
    for picture in pictures:
        path = README.parent / picture
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture
        assert path.stat().st_size < 300 * 1024, picture
