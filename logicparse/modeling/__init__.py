"""Logical Transformers (paper, section 4): the logic-aware embedding, ``logicalize`` for Hugging
Face models, the aligner from word labels (Document records) to subword ``logic_ids``, and the
data collator from a user's dataset to batches for ``transformers.Trainer`` or a DataLoader."""

from .aligner import (LogicAligner, as_document, check_document, document_text, join_documents,
                      label_matrix, subword_words)
from .collator import (LogicDataCollator, annotate_dataset, bundled_model_path, document_feature,
                       documents_by_text)
from .embedding import LogicalEmbedding, expected_new_parameters, fit_depth
from .logicalize import (NoLabelsWarning, from_pretrained, logic_modules, logic_param_groups,
                         logical_embedding, logicalize)

__all__ = [
    "LogicAligner", "LogicDataCollator", "LogicalEmbedding", "NoLabelsWarning", "annotate_dataset", "as_document",
    "bundled_model_path", "check_document", "document_feature", "document_text",
    "documents_by_text",
    "expected_new_parameters", "fit_depth", "from_pretrained", "join_documents", "label_matrix",
    "logic_modules", "logic_param_groups",
    "logical_embedding", "logicalize", "subword_words",
]
