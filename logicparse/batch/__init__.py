"""Batch annotation of corpora into Arrow shards (``logicparse annotate``), and their readers.

>>> from logicparse.batch import annotate_corpus, RunConfig, read_shards, iter_documents, write_documents
>>> annotate_corpus(["corpus/"], "out/corpus", RunConfig(workers=2))   # doctest: +SKIP
>>> table = read_shards("out/corpus")            # one pyarrow.Table, schema ARROW_SCHEMA
>>> for doc in iter_documents("out/corpus"): ...  # Documents, one shard in memory at a time
>>> write_documents("out/mine", docs)            # Documents made in process, same format
"""

from .inputs import InputDoc, ReadOptions, read_documents, resolve_inputs
from .run import Interrupted, RunConfig, annotate_corpus
from .shards import (documents_to_table, find_document, iter_documents, read_manifest,
                     read_shards, shard_paths, write_documents)
from .worker import WorkerSpec

__all__ = ["InputDoc", "Interrupted", "ReadOptions", "RunConfig", "WorkerSpec", "annotate_corpus",
           "documents_to_table", "find_document", "iter_documents", "read_documents",
           "read_manifest", "read_shards", "resolve_inputs", "shard_paths", "write_documents"]
