from .document import ARROW_SCHEMA, SCHEMA_VERSION, Document, Relation

__all__ = ["ARROW_SCHEMA", "SCHEMA_VERSION", "Document", "Relation"]
