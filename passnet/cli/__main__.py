"""``python -m passnet.cli``: the ``passnet`` command."""

from passnet.cli import main

main()
