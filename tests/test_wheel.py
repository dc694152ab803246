"""The wheel a user installs holds everything the library needs at run time.

The wheel is built from this checkout and installed (without dependencies) into a fresh virtual
environment that borrows the test environment's site-packages for its dependencies, so that no
CPU torch or other package is installed twice. Every command runs outside the repository, so
nothing can be found beside the package that the wheel lacks.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
PAPER = "But I try very hard not to go that way because it would be too easy for them."


def _run(args, cwd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    out = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=900, **kw)
    assert out.returncode == 0, f"{args}\n{out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("src")
    # Build from a copy of the tracked files: the wheel must not depend on what lies around.
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    dist = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), "."],
         cwd=src)
    (found,) = dist.glob("logicparse-*.whl")
    return found


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=env_dir).strip())
    # Dependencies from the test environment, after the venv's own site-packages.
    (site / "zz_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "--no-index",
          "--quiet", str(wheel)], cwd=env_dir)
    return env_dir


def test_wheel_holds_the_bundled_models_and_no_stray_packages(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("logicparse/models/parser/benepar_model.bin", "logicparse/models/senses/meta.json",
                   "logicparse/models/senses/as.skops", "logicparse/annotations/hand.jsonl",
                   "logicparse/models/arguments/meta.json", "logicparse/models/arguments/alpha.txt",
                   "logicparse/models/arguments/beta.txt",
                   "logicparse/service/app.py", "logicparse/service/static/index.html"):
        assert needed in names, needed
    tops = {n.split("/")[0] for n in names}
    assert tops == {"logicparse", wheel.name.split("-py")[0] + ".dist-info"}
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "[spacy_factories]" in zipfile.ZipFile(wheel).read(entry).decode()


def test_installed_wheel_annotates_outside_the_repository(installed, tmp_path):
    py = installed / "bin" / "python"
    code = ("import json, logicparse\n"
            "doc = logicparse.Annotator().annotate(%r)\n"
            "print(json.dumps({'file': logicparse.__file__,\n"
            "                  'relations': [[r.keyword, r.relation] for r in doc.relations]}))\n"
            % PAPER)
    out = json.loads(_run([str(py), "-c", code], cwd=tmp_path).splitlines()[-1])
    assert out["file"].startswith(str(installed))
    assert ["because", "causal"] in out["relations"] and ["But", "comparative"] in out["relations"]

    (tmp_path / "in.txt").write_text(PAPER + "\n\nIf it rains, we stay.\n")
    _run([str(installed / "bin" / "logicparse"), "annotate", "in.txt", "--out", "shards", "--quiet"],
         cwd=tmp_path)
    manifest = json.loads((tmp_path / "shards" / "manifest.json").read_text())
    assert manifest["documents"] == 1 and manifest["failed"] == 0
