"""The logicparse REST service (FastAPI). Start it with ``logicparse serve``; see docs/service.md."""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
