"""A warehouse, not a script: several SQL files extracted as one project.

- ``files``: the project's files (directories expanded) and their paths relative to its root;
- ``order``: files ordered by what they write and read (a table is written before it is read);
- ``context``: one extraction session across files, each statement named as its job
  (``headwater.model.job``: ``<file>#<ordinal>`` or a ``-- name:`` comment).
"""

from headwater.project.context import FileExtraction, ProjectContext, StatementOutcome
from headwater.project.files import ProjectFile, collect_files, project_root
from headwater.project.order import FileOrder, order_files

__all__ = [
    "FileExtraction",
    "FileOrder",
    "ProjectContext",
    "ProjectFile",
    "StatementOutcome",
    "collect_files",
    "order_files",
    "project_root",
]
