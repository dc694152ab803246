"""The paper's Figure 2: a 2-D PCA of one keyword's contextual vectors, coloured by gold sense."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from .data import Annotation
from .features import Occurrence, assemble


def pca_figure(model, annotations: Sequence[Annotation], keyword: str, out: Path) -> Path:
    """Vectors of ``keyword`` as ``model`` sees them (its encoder, layer and pooling for the
    keyword), projected on their first two principal components, written as PNG."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers
    import matplotlib.pyplot as plt
    from sklearn.decomposition import PCA

    entry = model.entries.get(keyword, {"layer": model.encoder.n_layers - 1, "pooling": "mean"})
    feats = model.encoder.encode([Occurrence(a.text, a.char_start, a.char_end) for a in annotations],
                                 layers=[entry["layer"]], max_length=entry.get("window"))
    X = assemble(feats, entry["layer"], entry["pooling"])
    xy = PCA(n_components=2).fit_transform(X)
    fig, ax = plt.subplots(figsize=(6, 5), dpi=120)
    for label in sorted({a.label for a in annotations}):
        idx = [i for i, a in enumerate(annotations) if a.label == label]
        ax.scatter(xy[idx, 0], xy[idx, 1], s=14, alpha=0.75, label=f"{label} ({len(idx)})")
    ax.set_title(f"'{keyword}': {model.encoder.name.split('/')[-1]}, layer {entry['layer']}, "
                 f"{entry['pooling']} (PCA)", fontsize=9)
    ax.set_xlabel("PC 1")
    ax.set_ylabel("PC 2")
    ax.legend(fontsize=8, title="gold sense", title_fontsize=8)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png")
    plt.close(fig)
    return out
