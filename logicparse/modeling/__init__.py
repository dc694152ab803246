"""Logical Transformers (paper, section 4): the logic-aware embedding, ``logicalize`` for Hugging
Face models, and the aligner from word labels (Document records) to subword ``logic_ids``."""

from .aligner import (LogicAligner, as_document, check_document, document_text, join_documents,
                      label_matrix, subword_words)
from .embedding import LogicalEmbedding, expected_new_parameters, fit_depth
from .logicalize import from_pretrained, logical_embedding, logicalize

__all__ = [
    "LogicAligner", "LogicalEmbedding", "as_document", "check_document", "document_text",
    "expected_new_parameters", "fit_depth", "from_pretrained", "join_documents", "label_matrix",
    "logical_embedding", "logicalize", "subword_words",
]
