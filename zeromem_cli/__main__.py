"""``python -m zeromem_cli``: the same entry point as the ``zeromem`` command."""

from zeromem_cli.entry import console

if __name__ == "__main__":
    console()
