"""The bottom layer: the types every other subpackage shares (results and their statuses,
tolerance levels and error classes, integrity findings) and where the data that ships with
passnet lies (``bundled``). It imports no other passnet subpackage, so anything may import it
(the layers contract in pyproject.toml checks this)."""
