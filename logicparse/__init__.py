"""logicparse: logical structure of English text for Logical-Transformer training."""

from .annotator import Annotator, annotate_trees
from .taxonomy import LABELS, RELATIONS
from .tokens import Document, Relation

__version__ = "0.1.0"

__all__ = ["LABELS", "RELATIONS", "Annotator", "Document", "Relation", "annotate_trees", "__version__"]
