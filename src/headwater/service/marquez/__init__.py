"""Marquez's read API (the OpenLineage reference backend's ``/api/v1`` paths and shapes) over the store,
so that Marquez's web UI and API clients read headwater (``docs/api.md``, *Marquez-compatible endpoints*)."""

from headwater.service.marquez.routes import router

__all__ = ["router"]
