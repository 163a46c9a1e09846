#!/usr/bin/env bash
#
# The Python package (python/, docs/python.md): pip installs it offline into
# a scratch folder with Debian's own python3, pip and setuptools, then its
# unittests run against this bnet, importing the installed copy.
#
#   bash tests/python/test_python.sh PATH_TO_BNET
set -u
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh"

# Debian's interpreter, not a pyenv or venv one that PATH may put first
PY=/usr/bin/python3
need="scripts/need-packages.sh python3-pip python3-setuptools python3-yaml python3-pandas"
[ -x "$PY" ] || { echo "FAIL  no $PY: $need"; exit 1; }
"$PY" -m pip --version >/dev/null 2>&1 || { echo "FAIL  $PY has no pip: $need"; exit 1; }
"$PY" -c 'import setuptools' 2>/dev/null || { echo "FAIL  $PY has no setuptools: $need"; exit 1; }
"$PY" -c 'import yaml' 2>/dev/null || { echo "FAIL  $PY has no PyYAML: $need"; exit 1; }

# a copy, so the build leaves nothing in the tree (with CMakeLists.txt beside
# it: the version's source); the user's pip settings (PIP_USER, an index)
# would change what is tested
mkdir "$T/src" && cp CMakeLists.txt "$T/src/" && cp -r python "$T/src/python" &&
  rm -rf "$T/src/python/build" "$T/src/python/"*.egg-info
for v in $(compgen -e); do [[ $v == PIP_* ]] && unset "$v"; done
# --target installs into a folder of its own: Debian's externally-managed
# guard does not apply, and no venv is needed
PIP_CONFIG_FILE=/dev/null "$PY" -m pip install --no-index --no-build-isolation --no-deps \
    --no-cache-dir --disable-pip-version-check --root-user-action=ignore \
    --target "$T/site" "$T/src/python" >"$T/pip.log" 2>&1
st=$?
((st)) && cat "$T/pip.log"
ok "pip installs python/ offline" $st

export PYTHONPATH=$T/site BNET PYTHONDONTWRITEBYTECODE=1
where=$("$PY" -c 'import bnet; print(bnet.__file__)' 2>&1)
[[ $where == "$T/site/bnet/__init__.py" ]]
ok "bnet imports from the installed copy ($where)" $?
"$PY" -c 'import pandas' 2>/dev/null || echo "note  no pandas: the DataFrame tests skip ($need)"

"$PY" -m unittest discover -s python/tests -t python/tests >"$T/unittest.log" 2>&1
st=$?
((st)) && cat "$T/unittest.log"
ok "python/tests: $(grep "^Ran" "$T/unittest.log"), $(tail -n 1 "$T/unittest.log")" $st

finish
