"""The package as meson installs it: every module of python/mbs is in python/meson.build's
install list (a module left out breaks `import mbs` after `meson install`)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_every_module_is_installed():
    listed = set(re.findall(r"'mbs/([A-Za-z0-9_]+\.py)'", (ROOT / "meson.build").read_text()))
    present = {p.name for p in (ROOT / "mbs").glob("*.py")}
    assert present - listed == set(), f"not installed by python/meson.build: {sorted(present - listed)}"
    assert listed - present == set(), f"listed but missing: {sorted(listed - present)}"
