"""The ``headwater`` command line: argument parsing and rendering only."""
