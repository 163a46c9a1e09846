"""The package's version is bnet's, from its one source: project(bnet
VERSION x.y.z) in ../CMakeLists.txt. Everything else is in pyproject.toml."""
import pathlib
import re

from setuptools import setup

CMAKE = pathlib.Path(__file__).resolve().parent.parent / "CMakeLists.txt"
found = re.search(r"project\(bnet VERSION ([0-9.]+)", CMAKE.read_text(encoding="utf-8"))
if not found:
    raise SystemExit(f"{CMAKE}: no project(bnet VERSION x.y.z)")
setup(version=found.group(1))
