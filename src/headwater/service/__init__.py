"""The lineage service: FastAPI app over the store (``create_app``) and its server (``serve``)."""

from headwater.service.app import API, create_app
from headwater.service.server import UnsafeBind, check_bind, serve

__all__ = ["API", "UnsafeBind", "check_bind", "create_app", "serve"]
