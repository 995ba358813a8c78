"""learn-pi-lab: the teaching models behind the workbook.

Start with ``session_tree`` (entries that know only their parent), then ``jsonl`` (the
file), then ``pi`` (what Pi does with the entries). ``docs/architecture.md`` maps the rest.
"""

__version__ = "0.1.0"
