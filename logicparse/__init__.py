"""logicparse: logical structure of English text for Logical-Transformer training."""

from .taxonomy import LABELS, RELATIONS
from .tokens import Document, Relation

__version__ = "0.1.0"

__all__ = ["LABELS", "RELATIONS", "Document", "Relation", "__version__"]
